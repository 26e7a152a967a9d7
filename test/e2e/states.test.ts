import { describe, expect, it } from 'vitest';
import { readDerivedState } from '../../lib/jobs/reindex.ts';
import { derivations, differences } from '../../lib/model/derivations.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * Workflow states per project (docs/workflows.md) over HTTP: the states a new project gets, their
 * CRUD with its 422s and 404s, issues in custom states (status, state_id, status_category), every
 * count read by category compared with a recount of the issues, and a delete that moves its issues.
 */
const gateway = useGateway();

async function orgWithProject() {
  const { org, admin, member } = await orgWithClients(gateway);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const p = `/api/v1/projects/${project.id}`;
  return { org, admin, member, project, p, states: `${p}/states` };
}

const created = async (client: ApiClient, path: string, body: unknown) => {
  const res = await client.post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

describe('a new project', () => {
  it('has one state per category, named after it, in category order', async () => {
    const { admin, states } = await orgWithProject();
    const res = await admin.get(states);
    expect(res.status).toBe(200);
    expect(res.body.map((s: { name: string; category: string; status: string }) => [s.name, s.category, s.status])).toEqual([
      ['backlog', 'backlog', 'backlog'],
      ['todo', 'todo', 'todo'],
      ['in_progress', 'in_progress', 'in_progress'],
      ['done', 'done', 'done'],
      ['cancelled', 'cancelled', 'cancelled'],
    ]);
  });

  it('answers the five statuses as before, with the state and its category', async () => {
    const { admin, p, states } = await orgWithProject();
    const all = (await admin.get(states)).body as { id: number; name: string }[];
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'T' } });
    expect(issue).toMatchObject({ status: 'backlog', status_category: 'backlog', state_id: all[0]!.id });
    const moved = await admin.patch(`${p}/issues/${issue.id}`, { issue: { status: 'in_progress' } });
    expect(moved.body).toMatchObject({ status: 'in_progress', status_category: 'in_progress', state_id: all[2]!.id });
    expect(moved.body.started_at).not.toBeNull();
  });
});

describe('state CRUD', () => {
  it('creates, reads, renames, reorders and limits a state; its issues show the change at once', async () => {
    const { admin, p, states } = await orgWithProject();
    const review = await created(admin, states, { state: { name: 'In review', category: 'in_progress', wip_limit: 3 } });
    expect(review).toMatchObject({
      name: 'In review',
      status: 'in_review',
      category: 'in_progress',
      wip_limit: 3,
      color: '#f59e0b',
    });
    const listed = (await admin.get(states)).body.map((s: { name: string }) => s.name);
    expect(listed).toEqual(['backlog', 'todo', 'in_progress', 'In review', 'done', 'cancelled']);
    expect((await admin.get(`${states}/${review.id}`)).body).toEqual(review);

    const issue = await created(admin, `${p}/issues`, { issue: { title: 'T', status: 'In Review' } });
    expect(issue).toMatchObject({ status: 'in_review', state_id: review.id, status_category: 'in_progress' });
    const renamed = await admin.patch(`${states}/${review.id}`, { state: { name: 'Code review', order: 1 } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Code review', status: 'code_review', order: 1 });
    expect((await admin.get(`${p}/issues/${issue.id}`)).body).toMatchObject({ status: 'code_review', state_id: review.id });
    expect((await admin.get(states)).body[0].name).toBe('Code review');
  });

  it('refuses names taken ignoring case and spacing, a category name in another category, and bad fields, writing nothing', async () => {
    const { admin, states } = await orgWithProject();
    await created(admin, states, { state: { name: 'In review', category: 'in_progress' } });
    const cases: [unknown, RegExp][] = [
      [{ state: { name: 'in_REVIEW', category: 'in_progress' } }, /already been taken/],
      [{ state: { name: 'in-review', category: 'done' } }, /already been taken/],
      [{ state: { name: 'Done', category: 'in_progress' } }, /name of a category/],
      [{ state: { name: '!!', category: 'todo' } }, /letter or a digit/],
      [{ state: { name: 'QA', category: 'started' } }, /category/],
      [{ state: { name: 'QA', category: 'todo', wip_limit: 0 } }, /wip_limit/],
      [{ state: { name: 'QA', category: 'todo', color: 'red' } }, /color/],
      [{ state: { category: 'todo' } }, /name/],
    ];
    for (const [body, message] of cases) {
      const res = await admin.post(states, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.join(' '), JSON.stringify(body)).toMatch(message);
    }
    expect((await admin.get(states)).body).toHaveLength(6);
  });

  it('answers 404 for a state of another project, one that is not there, and a project that is not there', async () => {
    const a = await orgWithProject();
    const other = (await a.admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const own = await created(a.admin, a.states, { state: { name: 'Only here', category: 'todo' } });
    expect((await a.admin.get(`/api/v1/projects/${other.id}/states/${own.id}`)).status).toBe(404);
    expect((await a.admin.patch(`/api/v1/projects/${other.id}/states/${own.id}`, { state: { name: 'x' } })).status).toBe(404);
    expect((await a.admin.get(`${a.states}/999999999`)).status).toBe(404);
    expect((await a.admin.patch(`${a.states}/999999999`, { state: { name: 'x' } })).status).toBe(404);
    expect((await a.admin.delete(`${a.states}/999999999`)).status).toBe(404);
    expect((await a.admin.get('/api/v1/projects/999999999/states')).status).toBe(404);
  });

  it('refuses an unknown status or state_id on an issue write, naming the states', async () => {
    const { admin, p } = await orgWithProject();
    const res = await admin.post(`${p}/issues`, { issue: { title: 'T', status: 'Shipped' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(['status must be one of: backlog, todo, in_progress, done, cancelled']);
    await created(admin, `${p}/states`, { state: { name: 'Shipped', category: 'done' } });
    // Named by a write, a state of the project's own is checked against the project's states.
    expect((await admin.post(`${p}/issues`, { issue: { title: 'T', status: 'shipped' } })).body).toMatchObject({
      status: 'shipped',
    });
    const still = await admin.post(`${p}/issues`, { issue: { title: ' ', status: 'Gone' } });
    expect(still.body.errors).toEqual([
      "title can't be blank",
      'status must be one of: backlog, todo, in_progress, done, shipped, cancelled',
    ]);
    expect((await admin.post(`${p}/issues`, { issue: { title: 'T', state_id: 999999999 } })).status).toBe(422);
    expect((await admin.get(`${p}/issues`)).body).toHaveLength(1);
  });
});

describe('deleting a state', () => {
  it('keeps the last state of a category, requires move_to while it has issues, and moves them with exact counts', async () => {
    const { org, admin, p, states, project } = await orgWithProject();
    const all = (await admin.get(states)).body as { id: number; name: string }[];
    const done = all.find((s) => s.name === 'done')!;
    const todo = all.find((s) => s.name === 'todo')!;
    const refused = await admin.delete(`${states}/${done.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatch(/last state of category done/);

    const qa = await created(admin, states, { state: { name: 'QA', category: 'in_progress' } });
    const sprint = await created(admin, `${p}/sprints`, { sprint: { name: 'S1' } });
    for (let i = 0; i < 3; i++) {
      await created(admin, `${p}/sprints/${sprint.id}/issues`, { issue: { title: `Q${i}`, status: 'QA', story_points: 2 } });
    }
    await created(admin, `${p}/issues`, { issue: { title: 'B', state_id: qa.id, story_points: 5 } });
    const needsTarget = await admin.delete(`${states}/${qa.id}`);
    expect(needsTarget.status).toBe(422);
    expect(needsTarget.body.errors[0]).toMatch(/'QA' has 4 issues: name the state they move to/);
    expect((await admin.delete(`${states}/${qa.id}?move_to=999999999`)).status).toBe(422);

    expect((await admin.delete(`${states}/${qa.id}?move_to=${done.id}`)).status).toBe(204);
    expect((await admin.get(`${states}/${qa.id}`)).status).toBe(404);
    // At once: every issue shows the state it moved to.
    const listed = (await admin.get(`${p}/sprints/${sprint.id}/issues`)).body as { status: string; state_id: number }[];
    expect(listed.map((i) => [i.status, i.state_id])).toEqual(Array(3).fill(['done', done.id]));
    // Then the cascade writes it on each, with the counts of a change into done.
    await eventually(
      'the state cascade to move its issues',
      async () => (await admin.get(`${p}/sprints/${sprint.id}`)).body,
      (s) => s.completed_story_points === 6,
      bounds.cascade(),
    );
    const stored = (await admin.get(`${p}/sprints/${sprint.id}/issues`)).body as {
      completed_at: string | null;
      status_category: string;
    }[];
    expect(stored.every((i) => i.completed_at !== null && i.status_category === 'done')).toBe(true);
    await eventually(
      'the backlog issue moved too',
      async () => (await admin.get(`${p}/issues`)).body[0],
      (i) => i.completed_at !== null,
      bounds.cascade(),
    );
    // A state without issues goes without move_to.
    const empty = await created(admin, states, { state: { name: 'Later', category: 'todo' } });
    expect((await admin.delete(`${states}/${empty.id}`)).status).toBe(204);
    expect(todo).toBeDefined();
    const { issues, observed } = await readDerivedState(org.orgId);
    expect(
      derivations.flatMap((d) => differences(d, d.rebuild(issues.filter((i) => i.projectId === project.id)), observed)),
    ).toEqual([]);
  });
});

describe("a state's delete and the other states' rules", () => {
  it('removes its id from every rule that names it, in the same write, so that those states stay editable', async () => {
    const { admin, states } = await orgWithProject();
    const all = (await admin.get(states)).body as { id: number; name: string }[];
    const id = (name: string) => all.find((s) => s.name === name)!.id;
    const qa = await created(admin, states, { state: { name: 'QA', category: 'in_progress' } });
    const review = await created(admin, states, {
      state: { name: 'Review', category: 'in_progress', allowed_next_state_ids: [qa.id, id('done')] },
    });
    const onlyQa = await created(admin, states, {
      state: { name: 'Staging', category: 'in_progress', allowed_next_state_ids: [qa.id] },
    });
    const free = await created(admin, states, { state: { name: 'Parked', category: 'todo' } });
    expect((await admin.delete(`${states}/${qa.id}`)).status).toBe(204);
    const after = new Map(((await admin.get(states)).body as any[]).map((s) => [s.id, s]));
    expect(after.get(review.id)).toMatchObject({ allowed_next_state_ids: [id('done')] });
    expect(after.get(review.id).updated_at > review.updated_at).toBe(true);
    // A rule left empty allows no move (as it did for every state but the one deleted).
    expect(after.get(onlyQa.id)).toMatchObject({ allowed_next_state_ids: [] });
    expect(after.get(free.id)).toMatchObject({ allowed_next_state_ids: null, updated_at: free.updated_at });
    // The one read of a state (its item) says the same as the list (the project's copy).
    expect((await admin.get(`${states}/${review.id}`)).body).toMatchObject({ allowed_next_state_ids: [id('done')] });
    const renamed = await admin.patch(`${states}/${review.id}`, { state: { name: 'Code review' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Code review', allowed_next_state_ids: [id('done')] });
  });
});

describe('counts by category on a project with custom states', () => {
  it('match a brute-force recount: sprint statistics, is:open/is:closed, started_at/completed_at, velocity', async () => {
    const { admin, p, states } = await orgWithProject();
    for (const [name, category] of [
      ['In review', 'in_progress'],
      ['QA', 'in_progress'],
      ["Won't fix", 'cancelled'],
      ['Shipped', 'done'],
      ['Ready', 'todo'],
    ] as const) {
      await created(admin, states, { state: { name, category } });
    }
    const workflow = (await admin.get(states)).body as { name: string; status: string; category: string }[];
    const categoryOf = new Map(workflow.map((s) => [s.status, s.category]));
    const sprint = await created(admin, `${p}/sprints`, { sprint: { name: 'S1' } });
    const path = `${p}/sprints/${sprint.id}`;
    const names = ['todo', 'Ready', 'in_progress', 'In review', 'QA', 'done', 'Shipped', 'cancelled', "Won't fix", 'backlog'];
    for (let i = 0; i < 20; i++) {
      await created(admin, `${path}/issues`, { issue: { title: `I${i}`, status: names[i % names.length], story_points: i % 4 } });
    }
    // Moves between states of one category and across categories.
    const issues = (await admin.get(`${path}/issues?per_page=100`)).body as { id: number; status: string }[];
    for (const [i, to] of [
      [0, 'QA'],
      [1, 'Shipped'],
      [6, 'In review'],
      [7, 'done'],
    ] as const) {
      const res = await admin.patch(`${path}/issues/${issues[i]!.id}`, { issue: { status: to } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const now = (await admin.get(`${path}/issues?per_page=100`)).body as {
      status: string;
      status_category: string;
      story_points: number;
      started_at: string | null;
      completed_at: string | null;
    }[];
    for (const issue of now) {
      expect(issue.status_category).toBe(categoryOf.get(issue.status));
      expect(issue.completed_at !== null).toBe(issue.status_category === 'done' || issue.status_category === 'cancelled');
      if (issue.status_category === 'in_progress') expect(issue.started_at).not.toBeNull();
    }
    const recount = {
      issues_count: now.length,
      total_story_points: now.reduce((a, i) => a + i.story_points, 0),
      completed_story_points: now.filter((i) => i.status_category === 'done').reduce((a, i) => a + i.story_points, 0),
    };
    expect((await admin.get(path)).body).toMatchObject(recount);
    const open = now.filter((i) => !['done', 'cancelled'].includes(i.status_category)).length;
    const search = async (q: string) =>
      Number(
        (
          await admin.get(
            `/api/v1/issues?q=${encodeURIComponent(`${q} project:${(await admin.get(p)).body.prefix}`)}&per_page=100`,
          )
        ).headers.get('x-total-count') ?? -1,
      );
    await eventually(
      'the search to count open issues',
      () => search('is:open'),
      (n) => n === open,
    );
    expect(await search('is:closed')).toBe(now.length - open);
    // A state by its name in any case or spacing, a category by its own or Linear's name (docs/search.md).
    const count = (test: (i: (typeof now)[number]) => boolean) => now.filter(test).length;
    expect(await search('status:"In Review"')).toBe(count((i) => i.status === 'in_review'));
    expect(await search('status:qa,SHIPPED')).toBe(count((i) => ['qa', 'shipped'].includes(i.status)));
    expect(await search('status:in_progress')).toBe(count((i) => i.status === 'in_progress'));
    expect(await search('category:started')).toBe(count((i) => i.status_category === 'in_progress'));
    expect(await search('category:completed,canceled')).toBe(count((i) => ['done', 'cancelled'].includes(i.status_category)));
    expect(await search('category:unstarted -status:todo')).toBe(count((i) => i.status === 'ready'));
    expect(count((i) => i.status === 'in_review')).toBeGreaterThan(0);
    const typo = await admin.get(`/api/v1/issues?q=${encodeURIComponent('status:"In reveiw"')}`);
    expect(typo.status).toBe(422);
    expect(typo.body.errors[0]).toMatch(/^status: no project has a state named 'in_reveiw' \(known: .*in_review/);

    // Completion sends back what is open by category; velocity counts done by category.
    expect((await admin.post(`${path}/activate`)).status).toBe(200);
    const completed = await admin.post(`${path}/complete`);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect((await admin.get(`${p}/issues?per_page=100`)).body).toHaveLength(open);
    const velocity = (await admin.get(`${p}/velocity`)).body.sprints[0];
    expect(velocity).toMatchObject({ completed_story_points: recount.completed_story_points });
  });
});

describe('transition rules', () => {
  it('refuse a move a state does not allow, naming the rule and listing the allowed next states; every answer lists them', async () => {
    const { admin, p, states } = await orgWithProject();
    const all = (await admin.get(states)).body as { id: number; name: string }[];
    const id = (name: string) => all.find((s) => s.name === name)!.id;
    const review = await created(admin, states, {
      state: { name: 'In review', category: 'in_progress', allowed_next_state_ids: [id('in_progress'), id('done')] },
    });
    expect(review).toMatchObject({
      allowed_next_state_ids: [id('in_progress'), id('done')],
      required_fields: [],
      refuse_blocked: false,
    });
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'T', status: 'In review' } });
    expect(issue.allowed_next_states).toEqual(['in_progress', 'done']);
    const refused = await admin.patch(`${p}/issues/${issue.id}`, { issue: { status: 'todo' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      "status: 'in_review' may not move to 'todo' (rule: allowed_next_state_ids of 'in_review')",
      'allowed next states: in_progress, done',
    ]);
    expect((await admin.get(`${p}/issues/${issue.id}`)).body).toMatchObject({ status: 'in_review' });
    const moved = await admin.patch(`${p}/issues/${issue.id}`, { issue: { status: 'done' } });
    expect(moved.status).toBe(200);
    expect(moved.body.allowed_next_states).toEqual(['backlog', 'todo', 'in_progress', 'in_review', 'cancelled']);
    // A state that is none of the project's cannot be allowed.
    const bad = await admin.patch(`${states}/${review.id}`, { state: { allowed_next_state_ids: [999] } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(['allowed_next_state_ids: 999 is no state of this project']);
  });

  it('refuse a blocked issue into a state that refuses blocked issues, and let it in once its blocker is done', async () => {
    const { admin, p, states } = await orgWithProject();
    const done = ((await admin.get(states)).body as { id: number; name: string }[]).find((s) => s.name === 'done')!;
    expect((await admin.patch(`${states}/${done.id}`, { state: { refuse_blocked: true } })).status).toBe(200);
    const blocker = await created(admin, `${p}/issues`, { issue: { title: 'Blocker' } });
    const blocked = await created(admin, `${p}/issues`, { issue: { title: 'Blocked' } });
    const related = await admin.post(`/api/v1/issues/${blocker.issue_number}/relations`, {
      relation: { type: 'blocks', issue_key: blocked.issue_number },
    });
    expect(related.status).toBe(201);
    const read = (await admin.get(`${p}/issues/${blocked.id}`)).body;
    expect(read.blocked).toBe(true);
    expect(read.allowed_next_states).toEqual(['todo', 'in_progress', 'cancelled']);
    const refused = await admin.patch(`${p}/issues/${blocked.id}`, { issue: { status: 'done' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toBe("status: a blocked issue may not enter 'done' (rule: refuse_blocked of 'done')");
    expect((await admin.patch(`${p}/issues/${blocker.id}`, { issue: { status: 'done' } })).status).toBe(200);
    expect((await admin.patch(`${p}/issues/${blocked.id}`, { issue: { status: 'done' } })).status).toBe(200);
  });

  it('require fields on entering a state, on update and on create, taking what the same write sets', async () => {
    const { admin, p, member, states } = await orgWithProject();
    const me = (await member.get('/api/v1/me')).body.account;
    const ready = await created(admin, states, {
      state: { name: 'Ready', category: 'todo', required_fields: ['assignee_id', 'story_points'] },
    });
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'T' } });
    const refused = await admin.patch(`${p}/issues/${issue.id}`, { issue: { status: 'Ready', story_points: 3 } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toBe("status: entering 'ready' requires assignee_id (rule: required_fields of 'ready')");
    const ok = await admin.patch(`${p}/issues/${issue.id}`, {
      issue: { state_id: ready.id, story_points: 3, assignee_id: me.id },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'ready', story_points: 3, assignee_id: me.id });
    const create = await admin.post(`${p}/issues`, { issue: { title: 'N', status: 'ready' } });
    expect(create.status).toBe(422);
    expect(create.body.errors).toEqual([
      "status: entering 'ready' requires assignee_id, story_points (rule: required_fields of 'ready')",
    ]);
  });
});

describe('the board', () => {
  it('answers each column with the count and points of a recount, under concurrent moves, with WIP limits and issues in place', async () => {
    const { admin, p, states } = await orgWithProject();
    const review = await created(admin, states, { state: { name: 'In review', category: 'in_progress', wip_limit: 2 } });
    const sprint = await created(admin, `${p}/sprints`, { sprint: { name: 'S1' } });
    const path = `${p}/sprints/${sprint.id}`;
    const names = ['todo', 'in_progress', 'In review', 'done'];
    const issues: { id: number }[] = [];
    for (let i = 0; i < 16; i++) {
      issues.push(
        await created(admin, `${path}/issues`, { issue: { title: `I${i}`, status: names[i % 4], story_points: i % 5 } }),
      );
    }
    // Concurrent moves between states, points changes and moves out to the backlog.
    const results = await Promise.all(
      issues.map((issue, i) =>
        admin.patch(`${path}/issues/${issue.id}`, {
          issue: i % 5 === 4 ? { sprint_id: null } : { status: names[(i * 7) % 4], story_points: (i * 3) % 8 },
        }),
      ),
    );
    for (const res of results) expect([200, 503], res.text).toContain(res.status);

    const board = await admin.get(`${path}/board?per_column=3`);
    expect(board.status).toBe(200);
    const listed = (await admin.get(`${path}/issues?per_page=100`)).body as {
      id: number;
      state_id: number;
      story_points: number | null;
      position: number;
    }[];
    const columns = board.body.columns as {
      state: { id: number; status: string };
      count: number;
      story_points: number;
      wip_limit: number | null;
      exceeded: boolean;
      issues: { id: number; position: number }[];
    }[];
    expect(columns.map((c) => c.state.status)).toEqual(['backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled']);
    for (const column of columns) {
      const mine = listed.filter((i) => i.state_id === column.state.id);
      expect(column.count, column.state.status).toBe(mine.length);
      expect(column.story_points, column.state.status).toBe(mine.reduce((a, i) => a + (i.story_points ?? 0), 0));
      expect(column.issues.map((i) => [i.id, i.position])).toEqual(mine.slice(0, 3).map((i) => [i.id, i.position]));
      if (column.state.id === review.id) expect(column.exceeded).toBe(column.count > 2);
    }
    expect(board.body.complete).toBe(true);
    const backlog = await admin.get(`${p}/backlog/board`);
    expect(backlog.status).toBe(200);
    expect(backlog.body.columns.reduce((a: number, c: { count: number }) => a + c.count, 0)).toBe(
      (await admin.get(`${p}/issues?per_page=100`)).body.length,
    );
    expect((await admin.get(`${p}/sprints/999999999/board`)).status).toBe(404);
    expect((await admin.get(`${path}/board?per_column=0`)).status).toBe(422);
  });
});

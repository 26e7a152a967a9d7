import { describe, expect, it } from 'vitest';
import { type ApiClient, followPages, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * Sub-issues (docs/api.md: Sub-issues): `parent_id` on create and update, its rules (same project,
 * no cycle, at most 5 levels, at most 100 children), a parent's `sub_issues_summary` kept exact by
 * the writes of its children, `GET /issues/{key}/sub_issues`, the `parent_id` filter, and the
 * children of a deleted parent released by its cascade, recorded in their activity.
 */

const gateway = useGateway();

async function setup() {
  const clients = await orgWithClients(gateway);
  const { admin } = clients;
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Atlas', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  const sprint = (await admin.post(`${projectPath}/sprints`, { sprint: { name: 'One' } })).body;
  const sprintPath = `${projectPath}/sprints/${sprint.id}`;
  const backlog = `${projectPath}/issues`;
  const inBacklog = async (fields: Record<string, unknown> = {}) =>
    (await admin.post(backlog, { issue: { title: 'b', ...fields } })).body as Issue;
  const inSprint = async (fields: Record<string, unknown> = {}) =>
    (await admin.post(`${sprintPath}/issues`, { issue: { title: 's', ...fields } })).body as Issue;
  return { ...clients, project, projectPath, sprint, sprintPath, backlog, inBacklog, inSprint };
}

interface Issue {
  id: number;
  issue_number: string;
  sprint_id: number | null;
  parent_id: number | null;
  status: string;
  story_points: number | null;
  sub_issues_summary: { total: number; done: number; story_points: number; completed_story_points: number };
}

/** Where an issue is read and written: its sprint's path or the backlog's. */
const pathOf = (s: Awaited<ReturnType<typeof setup>>, issue: { id: number; sprint_id: number | null }) =>
  issue.sprint_id === null ? `${s.backlog}/${issue.id}` : `${s.projectPath}/sprints/${issue.sprint_id}/issues/${issue.id}`;

const byKey = async (client: ApiClient, key: string) => (await client.get(`/api/v1/issues/${key}`)).body as Issue;

/** The summary a parent should show, counted from its children as the lists filtered by parent show them. */
async function recount(s: Awaited<ReturnType<typeof setup>>, parentId: number, sprintIds: number[]) {
  const lists = [s.backlog, ...sprintIds.map((id) => `${s.projectPath}/sprints/${id}/issues`)];
  const children = (await Promise.all(lists.map((l) => followPages<Issue>(s.admin, `${l}?parent_id=${parentId}`)))).flatMap(
    (r) => r.items,
  );
  const done = children.filter((c) => c.status === 'done');
  const points = (all: Issue[]) => all.reduce((n, c) => n + (c.story_points ?? 0), 0);
  return { total: children.length, done: done.length, story_points: points(children), completed_story_points: points(done) };
}

describe('sub-issues', () => {
  it('sets a parent on create and update, in any list, answers parent_id everywhere, and keeps it across moves', async () => {
    const s = await setup();
    const parent = await s.inBacklog();
    expect(parent).toMatchObject({
      parent_id: null,
      sub_issues_summary: { total: 0, done: 0, story_points: 0, completed_story_points: 0 },
    });
    const a = await s.inSprint({ parent_id: parent.id, story_points: 3 });
    expect(a.parent_id).toBe(parent.id);
    const b = await s.inBacklog({ story_points: 5, status: 'done' });
    const set = await s.admin.patch(pathOf(s, b), { issue: { parent_id: parent.id } });
    expect(set.status).toBe(200);
    expect(set.body.parent_id).toBe(parent.id);

    expect((await byKey(s.admin, parent.issue_number)).sub_issues_summary).toEqual({
      total: 2,
      done: 1,
      story_points: 8,
      completed_story_points: 5,
    });
    // Moving a child between a sprint and the backlog keeps its parent (and the summary).
    const moved = await s.admin.patch(pathOf(s, a), { issue: { sprint_id: null } });
    expect(moved.body).toMatchObject({ sprint_id: null, parent_id: parent.id });
    const back = await s.admin.patch(`${s.backlog}/${a.id}`, { issue: { sprint_id: s.sprint.id, status: 'done' } });
    expect(back.body).toMatchObject({ sprint_id: s.sprint.id, parent_id: parent.id });
    expect((await byKey(s.admin, parent.issue_number)).sub_issues_summary).toEqual({
      total: 2,
      done: 2,
      story_points: 8,
      completed_story_points: 8,
    });
    // Lists, the issue by key and /me/issues all answer parent_id.
    const list = (await s.admin.get(`${s.sprintPath}/issues`)).body as Issue[];
    expect(list.find((i) => i.id === a.id)?.parent_id).toBe(parent.id);
    expect((await byKey(s.admin, a.issue_number)).parent_id).toBe(parent.id);

    // Cleared with null: the parent's summary follows.
    const cleared = await s.admin.patch(`${s.sprintPath}/issues/${a.id}`, { issue: { parent_id: null } });
    expect(cleared.body.parent_id).toBeNull();
    expect((await byKey(s.admin, parent.issue_number)).sub_issues_summary).toEqual({
      total: 1,
      done: 1,
      story_points: 5,
      completed_story_points: 5,
    });
  });

  it('refuses a parent that is missing, of another project, the issue itself, a cycle or too deep, with nothing written', async () => {
    const s = await setup();
    const other = (await s.admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const foreign = (await s.admin.post(`/api/v1/projects/${other.id}/issues`, { issue: { title: 'x' } })).body as Issue;
    const root = await s.inBacklog();

    const created = async (parent_id: unknown) => s.admin.post(s.backlog, { issue: { title: 'c', parent_id } });
    for (const [value, message] of [
      [999_999_999, 'parent_id must be an issue of this project'],
      [foreign.id, 'parent_id must be an issue of this project'],
      ['3', 'parent_id must be an integer'],
      [1.5, 'parent_id must be an integer'],
      [0, 'parent_id'],
    ] as const) {
      const res = await created(value);
      expect(res.status, JSON.stringify(value)).toBe(422);
      expect(JSON.stringify(res.body.errors)).toContain(message);
    }
    expect((await s.admin.get(s.backlog)).headers.get('x-total-count')).toBe('1');

    // A chain of 5 levels: root > l2 > l3 > l4 > l5.
    const chain = [root];
    for (let level = 2; level <= 5; level++) chain.push(await s.inBacklog({ parent_id: chain.at(-1)?.id }));
    const [, l2, , l4, l5] = chain as [Issue, Issue, Issue, Issue, Issue];
    const tooDeep = await created(l5.id);
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.body.errors).toEqual(['parent_id would make sub-issues more than 5 levels deep']);

    const patch = (issue: Issue, parent_id: number | null) =>
      s.admin.patch(`${s.backlog}/${issue.id}`, { issue: { parent_id, title: 'changed' } });
    expect((await patch(root, root.id)).body.errors).toEqual(['parent_id must not be the issue itself']);
    // root under its own descendant: a cycle.
    expect((await patch(root, l4.id)).body.errors).toEqual([
      'parent_id must not be one of the sub-issues of this issue (that would make a cycle)',
    ]);
    expect((await patch(l2, l5.id)).status).toBe(422);
    // A subtree moved counts whole: l4 (with l5 below) under a new issue of level 4 would reach 6.
    const side = [await s.inBacklog()];
    for (let level = 2; level <= 4; level++) side.push(await s.inBacklog({ parent_id: side.at(-1)?.id }));
    const moveL4 = await patch(l4, (side.at(-1) as Issue).id);
    expect(moveL4.status).toBe(422);
    expect(moveL4.body.errors).toEqual(['parent_id would make sub-issues more than 5 levels deep']);
    // ...but under level 3 it reaches exactly 5.
    const ok = await patch(l4, (side[2] as Issue).id);
    expect(ok.status).toBe(200);
    // Nothing of the refused writes was written (the title came with them).
    expect((await byKey(s.admin, root.issue_number)).parent_id).toBeNull();
    expect((await s.admin.get(`${s.backlog}/${root.id}`)).body.title).toBe('b');
    expect((await byKey(s.admin, l4.issue_number)).parent_id).toBe((side[2] as Issue).id);
    expect((await byKey(s.admin, l4.issue_number)).sub_issues_summary.total).toBe(1);
    expect((await byKey(s.admin, l2.issue_number)).sub_issues_summary.total).toBe(1);
  });

  it('never lets two writes at once make a cycle that each alone would not (X under Y under Z, and Z under X)', async () => {
    const s = await setup();
    for (let trial = 0; trial < 4; trial++) {
      const z = await s.inBacklog();
      const y = await s.inBacklog({ parent_id: z.id });
      const x = await s.inBacklog();
      const [first, second] = await Promise.all([
        s.admin.patch(`${s.backlog}/${x.id}`, { issue: { parent_id: y.id } }),
        s.admin.patch(`${s.backlog}/${z.id}`, { issue: { parent_id: x.id } }),
      ]);
      // One of them, whichever committed first; the other sees the cycle on its fresh read.
      expect([first.status, second.status].sort()).toEqual([200, 422]);
      const refused = first.status === 422 ? first : second;
      expect(refused.body.errors[0]).toMatch(/cycle/);
      const parents = await Promise.all([x, y, z].map(async (i) => (await byKey(s.admin, i.issue_number)).parent_id));
      expect(parents.filter((p) => p === null)).toHaveLength(1);
    }
  });

  it('allows at most 100 children per parent, also when children are added at once', async () => {
    const s = await setup();
    const parent = await s.inBacklog();
    const batch = async (n: number) =>
      Promise.all(Array.from({ length: n }, () => s.admin.post(s.backlog, { issue: { title: 'c', parent_id: parent.id } })));
    for (let i = 0; i < 4; i++) expect((await batch(24)).every((r) => r.status === 201)).toBe(true);
    // 96 children: 8 more at once, only 4 of them fit.
    const racing = await batch(8);
    expect(racing.filter((r) => r.status === 201)).toHaveLength(4);
    const refused = racing.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 422]);
    expect(refused[0]?.body.errors).toEqual([
      'parent_id names an issue that already has 100 sub-issues, the most an issue may have',
    ]);
    expect((await byKey(s.admin, parent.issue_number)).sub_issues_summary.total).toBe(100);
    const other = await s.inBacklog();
    expect((await s.admin.patch(`${s.backlog}/${other.id}`, { issue: { parent_id: parent.id } })).status).toBe(422);
    const listed = await followPages<Issue>(s.admin, `/api/v1/issues/${parent.issue_number}/sub_issues?per_page=100`);
    expect(listed.items).toHaveLength(100);
  }, 60_000);

  it('keeps the summary exact through concurrent child updates, moves, deletes and sprint completion', async () => {
    const s = await setup();
    const parent = await s.inBacklog();
    const next = (await s.admin.post(`${s.projectPath}/sprints`, { sprint: { name: 'Two' } })).body;
    const children = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 ? s.inSprint({ parent_id: parent.id, story_points: i }) : s.inBacklog({ parent_id: parent.id, story_points: i }),
      ),
    );
    // A child that is a parent too, in the sprint: completion moves it with its own child.
    const inner = children[1] as Issue;
    await s.inSprint({ parent_id: inner.id, story_points: 2 });
    const statuses = ['todo', 'in_progress', 'done', 'cancelled'];
    await Promise.all(
      children.map((c, i) => {
        const path = pathOf(s, c);
        if (i % 4 === 0) return s.admin.delete(path);
        if (i % 4 === 1) return s.admin.patch(path, { issue: { status: statuses[i % 3], story_points: i + 1 } });
        if (i % 4 === 2)
          return s.admin.patch(path, { issue: { sprint_id: c.sprint_id === null ? s.sprint.id : null, status: 'done' } });
        return s.admin.patch(path, { issue: { story_points: null, position: 1 } });
      }),
    );
    await s.admin.post(`${s.sprintPath}/activate`);
    const completed = await s.admin.post(`${s.sprintPath}/complete`, { carry_over: { sprint_id: next.id } });
    expect(completed.status).toBe(200);

    const summary = (await byKey(s.admin, parent.issue_number)).sub_issues_summary;
    expect(summary).toEqual(await recount(s, parent.id, [s.sprint.id, next.id]));
    expect(summary.total).toBe(9);
    expect((await byKey(s.admin, inner.issue_number)).sub_issues_summary.total).toBe(1);
    // The children list shows them where they are now.
    const listed = await followPages<Issue>(s.admin, `/api/v1/issues/${parent.issue_number}/sub_issues?per_page=4`);
    expect(listed.items).toHaveLength(9);
    for (const child of listed.items) {
      const now = await byKey(s.admin, child.issue_number);
      expect(child).toMatchObject({ sprint_id: now.sprint_id, status: now.status, story_points: now.story_points });
    }
  }, 60_000);

  it('lists sub-issues by key in creation order, paged, with an exact total; 404 for an unknown key', async () => {
    const s = await setup();
    const parent = await s.inBacklog();
    const made: Issue[] = [];
    for (let i = 0; i < 5; i++) made.push(await (i % 2 ? s.inSprint : s.inBacklog)({ parent_id: parent.id, title: `c${i}` }));
    await s.inBacklog(); // not a child

    const first = await s.member.get(`/api/v1/issues/${parent.issue_number.toLowerCase()}/sub_issues?per_page=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.body.map((c: Issue) => c.id)).toEqual(made.slice(0, 2).map((c) => c.id));
    expect(first.body[1]).toMatchObject({ parent_id: parent.id, title: 'c1', sprint_id: s.sprint.id, status: 'todo' });
    const walked = await followPages<Issue>(s.member, `/api/v1/issues/${parent.issue_number}/sub_issues?per_page=2`);
    expect(walked.items.map((c) => c.id)).toEqual(made.map((c) => c.id));
    expect(walked.pages).toBe(3);
    const third = await s.member.get(`/api/v1/issues/${parent.issue_number}/sub_issues?per_page=2&page=3`);
    expect(third.body.map((c: Issue) => c.id)).toEqual([made[4]?.id]);

    // A title changed shows in the list at once.
    await s.admin.patch(pathOf(s, made[0] as Issue), { issue: { title: 'renamed' } });
    expect((await s.member.get(`/api/v1/issues/${parent.issue_number}/sub_issues`)).body[0].title).toBe('renamed');

    expect((await s.member.get(`/api/v1/issues/${made[0]?.issue_number}/sub_issues`)).body).toEqual([]);
    expect((await s.member.get('/api/v1/issues/ZZZZ-999999/sub_issues')).status).toBe(404);
    expect((await s.member.get('/api/v1/issues/not-a-key/sub_issues')).status).toBe(404);
    expect((await s.member.get(`/api/v1/issues/${parent.issue_number}/sub_issues?cursor=bogus`)).status).toBe(422);
    // Another organisation sees nothing.
    const stranger = await orgWithClients(gateway);
    expect((await stranger.admin.get(`/api/v1/issues/${parent.issue_number}/sub_issues`)).status).toBe(404);
  });

  it('filters the sprint list, the backlog and /me/issues by parent_id (an id, or none), ANDed with the others', async () => {
    const s = await setup();
    const me = s.org.member.id;
    const parent = await s.inBacklog();
    const a = await s.inBacklog({ parent_id: parent.id, assignee_id: me, status: 'todo' });
    const b = await s.inBacklog({ parent_id: parent.id, status: 'done' });
    const c = await s.inSprint({ parent_id: parent.id, assignee_id: me });
    const d = await s.inSprint({ assignee_id: me });
    const ids = (res: { body: Issue[] }) => res.body.map((i) => i.id);

    expect(ids(await s.admin.get(`${s.backlog}?parent_id=${parent.id}`))).toEqual([a.id, b.id]);
    expect(ids(await s.admin.get(`${s.backlog}?parent_id=${parent.id}&status=done`))).toEqual([b.id]);
    expect(ids(await s.admin.get(`${s.backlog}?parent_id=none`))).toEqual([parent.id]);
    expect(ids(await s.admin.get(`${s.sprintPath}/issues?parent_id=${parent.id}`))).toEqual([c.id]);
    expect(ids(await s.admin.get(`${s.sprintPath}/issues?parent_id=none`))).toEqual([d.id]);
    const mine = await s.member.get(`/api/v1/me/issues?parent_id=${parent.id}`);
    expect(ids(mine)).toEqual([c.id, a.id]);
    expect(mine.headers.get('x-total-count')).toBe('2');
    expect(mine.headers.get('link')).toContain(`parent_id=${parent.id}`);
    expect(ids(await s.member.get(`/api/v1/me/issues?parent_id=none`))).toEqual([d.id]);
    expect(ids(await s.member.get(`/api/v1/me/issues?parent_id=${parent.id}&status=todo`))).toEqual([c.id, a.id]);
    // A child re-parented away leaves the filtered /me list at once.
    await s.admin.patch(`${s.backlog}/${a.id}`, { issue: { parent_id: null } });
    expect(ids(await s.member.get(`/api/v1/me/issues?parent_id=${parent.id}`))).toEqual([c.id]);

    for (const hostile of ['abc', '-1', '0', '1e3', '1,2', 'None', '', '9'.repeat(17), "1' OR 1=1"]) {
      for (const path of [s.backlog, `${s.sprintPath}/issues`, '/api/v1/me/issues']) {
        const res = await s.member.get(`${path}?parent_id=${encodeURIComponent(hostile)}`);
        expect(res.status, `${path} ${hostile}`).toBe(422);
        expect(JSON.stringify(res.body.errors)).toContain('parent_id');
      }
    }
  });

  it('a parent deleted keeps its children while in the trash; purged, they stay in place with parent_id null, recorded in their activity', async () => {
    const s = await setup();
    const grand = await s.inBacklog();
    const parent = await s.inSprint({ parent_id: grand.id });
    const kids = [await s.inBacklog({ parent_id: parent.id }), await s.inSprint({ parent_id: parent.id, story_points: 3 })];
    expect((await byKey(s.admin, grand.issue_number)).sub_issues_summary.total).toBe(1);

    expect((await s.admin.delete(pathOf(s, parent))).status).toBe(204);
    // The grandparent's summary moves in the delete's own transaction.
    expect((await byKey(s.admin, grand.issue_number)).sub_issues_summary.total).toBe(0);
    expect((await s.admin.get(`/api/v1/issues/${parent.issue_number}/sub_issues`)).status).toBe(404);
    // In the trash, its children keep their link (docs/trash.md); its purge releases them.
    for (const kid of kids) expect((await byKey(s.admin, kid.issue_number)).parent_id).toBe(parent.id);
    expect((await s.admin.delete(`/api/v1/trash/issue-${parent.id}`)).status).toBe(204);
    for (const kid of kids) {
      const now = await eventually(
        `the cascade to clear ${kid.issue_number}'s parent`,
        () => byKey(s.admin, kid.issue_number),
        (i) => i.parent_id === null,
        bounds.cascade(),
      );
      expect(now).toMatchObject({ id: kid.id, parent_id: null, sprint_id: kid.sprint_id });
      const entries = await eventually(
        `the parent change in ${kid.issue_number}'s activity`,
        async () =>
          (await s.admin.get(`${pathOf(s, kid)}/activity`)).body as { event: string; actor_id: number; changes: unknown[] }[],
        (all) => all.some((e) => JSON.stringify(e.changes).includes('parent_id')),
      );
      const cleared = entries.find((e) => JSON.stringify(e.changes).includes('parent_id'));
      expect(cleared).toMatchObject({
        event: 'issue.updated',
        actor_id: s.org.admin.id,
        changes: [{ field: 'parent_id', from: parent.id, to: null }],
      });
    }
    // Still in their lists, and free to take a new parent.
    expect((await s.admin.get(`${s.backlog}?parent_id=none`)).body.map((i: Issue) => i.id)).toContain(kids[0]?.id);
    expect((await s.admin.patch(pathOf(s, kids[1] as Issue), { issue: { parent_id: grand.id } })).status).toBe(200);
    expect((await byKey(s.admin, grand.issue_number)).sub_issues_summary).toMatchObject({ total: 1, story_points: 3 });
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { readDerivedState } from '../../lib/jobs/reindex.ts';
import { derivations, differences } from '../../lib/model/derivations.ts';
import { apiClient, followPages, newOrganisation, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';

const gateway = useGateway();

async function orgWithProject() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const prefix = randomPrefix();
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Bulk', prefix } })).body;
  const backlog = `/api/v1/projects/${project.id}/issues`;
  const sprint = (await admin.post(`/api/v1/projects/${project.id}/sprints`, { sprint: { name: 'S1' } })).body;
  return {
    org,
    admin,
    prefix,
    project,
    backlog,
    sprintIssues: `/api/v1/projects/${project.id}/sprints/${sprint.id}/issues`,
    sprint,
  };
}

const titles = async (client: ApiClient, list: string) =>
  (await followPages<{ title: string; position: number }>(client, `${list}?per_page=100`)).items;

/** The derived state of the organisation (counters, pointers, assignee entries) equals its rebuild. */
async function derivedDifferences(orgId: number): Promise<string[]> {
  const { issues, observed } = await readDerivedState(orgId);
  return derivations.flatMap((d) => differences(d, d.rebuild(issues), observed));
}

/** An answer without what a dry run cannot know before the write (its times, a create's id). */
const comparable = (r: { status: number; issue?: Record<string, unknown> }) => {
  if (!r.issue) return r;
  const { created_at: _c, updated_at: _u, started_at: _s, completed_at: _d, id, ...issue } = r.issue;
  // A dry run's create has id 0: ids are handed out as issues are written.
  return { ...r, issue: { ...issue, id: r.status === 201 ? 0 : id } };
};

describe('bulk writes of issues', () => {
  it('answers each item on its own, in order: creates, updates, and failures that change nothing', async () => {
    const { org, admin, prefix, backlog } = await orgWithProject();
    const first = (await admin.post(backlog, { issue: { title: 'Existing', story_points: 1 } })).body;
    const res = await admin.post(`${backlog}/bulk`, {
      items: [
        { issue: { title: 'One', assignee_id: org.admin.id, story_points: 3 } },
        { issue: { title: '' } },
        { id: first.id, issue: { status: 'in_progress', story_points: 5 } },
        { issue: { title: 'Two', assignee_id: 999_999 } },
        { id: 999_999, issue: { title: 'Nobody' } },
        { id: first.id, version: 1, issue: { title: 'Stale version' } },
        { issue: { title: 'Three', labels: ['nope'] } },
        { issue: { title: 'Four' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.dry_run).toBe(false);
    const statuses = res.body.results.map((r: { status: number }) => r.status);
    expect(statuses).toEqual([201, 422, 200, 422, 404, 412, 422, 201]);
    // The single routes' bodies: 422 `{errors}`, others `{error}`.
    const single = await admin.post(backlog, { issue: { title: '' } });
    expect(res.body.results[1]).toEqual({ status: 422, ...single.body });
    expect(res.body.results[3]).toEqual({ status: 422, errors: ['assignee_id must be an account of this organisation'] });
    expect(res.body.results[4]).toEqual({ status: 404, error: 'Issue not found' });
    expect(res.body.results[5].error).toMatch(/changed/);
    expect(res.body.results[0].issue).toMatchObject({ title: 'One', issue_number: `${prefix}-2`, position: 2 });
    expect(res.body.results[2].issue).toMatchObject({ id: first.id, status: 'in_progress', story_points: 5, position: 1 });
    expect(res.body.results[7].issue).toMatchObject({ title: 'Four', position: 3 });
    // The failed ones wrote nothing: the list holds the existing issue and the two creates.
    const list = await titles(admin, backlog);
    expect(list.map((i) => i.title)).toEqual(['Existing', 'One', 'Four']);
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('sets custom_fields on creates and updates; an item with a value its field does not take is refused alone, with its 422', async () => {
    const { org, admin, backlog, project } = await orgWithProject();
    const fields = `/api/v1/projects/${project.id}/fields`;
    const field = async (body: Record<string, unknown>) => {
      const res = await admin.post(fields, { field: body });
      expect(res.status).toBe(201);
    };
    await field({ name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high' }] });
    await field({ name: 'Platforms', type: 'multi_select', options: [{ name: 'ios' }, { name: 'android' }] });
    await field({ name: 'Estimate', type: 'number' });
    const first = (await admin.post(backlog, { issue: { title: 'Existing', custom_fields: { severity: 'low' } } })).body;
    const res = await admin.post(`${backlog}/bulk`, {
      items: [
        { issue: { title: 'One', custom_fields: { Severity: 'high', platforms: ['android', 'IOS'] } } },
        { issue: { title: 'Bad', custom_fields: { severity: 'hihg' } } },
        { id: first.id, issue: { custom_fields: { estimate: 5, Platforms: ['ios'] } } },
        { id: first.id, issue: { custom_fields: { estimate: 'five' } } },
        { issue: { title: 'Two', custom_fields: { nope: 1 } } },
        { issue: { title: 'Three', custom_fields: { estimate: 2.5 } } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 422, 200, 422, 422, 201]);
    expect(res.body.results[0].issue.custom_fields).toEqual({ severity: 'high', platforms: ['ios', 'android'], estimate: null });
    expect(res.body.results[2].issue.custom_fields).toEqual({ severity: 'low', platforms: ['ios'], estimate: 5 });
    expect(res.body.results[5].issue.custom_fields).toEqual({ severity: null, platforms: null, estimate: 2.5 });
    // The single routes' 422s, word for word.
    const single = await admin.post(backlog, { issue: { title: 'Bad', custom_fields: { severity: 'hihg' } } });
    expect(single.status).toBe(422);
    expect(res.body.results[1]).toEqual({ status: 422, ...single.body });
    expect(res.body.results[1].errors[0]).toContain("'hihg' is no option of Severity (did you mean 'high'?)");
    const patched = await admin.patch(`${backlog}/${first.id}`, { issue: { custom_fields: { estimate: 'five' } } });
    expect(res.body.results[3]).toEqual({ status: 422, ...patched.body });
    expect(res.body.results[3].errors[0]).toContain('custom_fields.estimate');
    expect(res.body.results[4].errors[0]).toContain("unknown field 'nope'");
    // What is stored is what the answers said; the refused wrote nothing.
    const list = await titles(admin, backlog);
    expect(list.map((i) => i.title)).toEqual(['Existing', 'One', 'Three']);
    const existing = (await admin.get(`${backlog}/${first.id}`)).body;
    expect(existing.custom_fields).toEqual({ severity: 'low', platforms: ['ios'], estimate: 5 });
    const found = await followPages(admin, `/api/v1/issues?q=${encodeURIComponent('cf.platforms:ios')}`);
    expect(found.items.map((i: { title: string }) => i.title).sort()).toEqual(['Existing', 'One']);
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('puts 100 items into one list at exact places, as the single writes would in sequence', async () => {
    const { org, admin, sprintIssues } = await orgWithProject();
    const items = Array.from({ length: 100 }, (_, i) => ({
      issue: {
        title: `T${i}`,
        story_points: i % 4,
        assignee_id: i % 2 ? org.admin.id : null,
        ...(i % 10 === 9 ? { position: 1 } : {}),
      },
    }));
    const res = await admin.post(`${sprintIssues}/bulk`, { items });
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: { status: number }) => r.status === 201)).toBe(true);
    // The expected order, replayed: appended, except every tenth item, put first.
    const expected: string[] = [];
    items.forEach((item, i) => (item.issue.position === 1 ? expected.unshift(`T${i}`) : expected.push(`T${i}`)));
    const list = await titles(admin, sprintIssues);
    expect(list.map((i) => i.title)).toEqual(expected);
    // Each answer's place was the place at its time; the last item's is its place now.
    const last = res.body.results[99].issue;
    expect(list.findIndex((i) => i.title === last.title) + 1).toBe(last.position);
    const sprint = (await admin.get(sprintIssues.replace(/\/issues$/, ''))).body;
    expect(sprint).toMatchObject({ issues_count: 100 });
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('puts creates that ask a place, written with the others, where single creates sent one after another put them', async () => {
    const { org, admin, sprintIssues, backlog } = await orgWithProject();
    for (const list of [sprintIssues, backlog])
      for (const title of ['E1', 'E2', 'E3']) expect((await admin.post(list, { issue: { title } })).status).toBe(201);
    // Past the end when asked (it stays last, before the creates after it), in the middle, at its own end.
    const items = [
      { issue: { title: 'C1' } },
      { issue: { title: 'C2', position: 10 } },
      { issue: { title: 'C3' } },
      { issue: { title: 'C4', position: 2 } },
      { issue: { title: 'C5', position: 5 } },
      { issue: { title: 'C6', position: 8 } },
      { issue: { title: 'C7' } },
    ];
    const res = await admin.post(`${sprintIssues}/bulk`, { items });
    expect(res.status).toBe(200);
    // The single writes: a create (which takes no place), then a PATCH to the place asked.
    const single: { title: string; position: number }[] = [];
    for (const { issue } of items) {
      const { position, ...fields } = issue as { title: string; position?: number };
      const created = await admin.post(backlog, { issue: fields });
      expect(created.status).toBe(201);
      const moved =
        position === undefined ? created : await admin.patch(`${backlog}/${created.body.id}`, { issue: { position } });
      expect(moved.status).toBeLessThan(300);
      single.push(moved.body);
    }
    expect(res.body.results.map((r: { issue: { position: number } }) => r.issue.position)).toEqual(single.map((i) => i.position));
    const bulkOrder = (await titles(admin, sprintIssues)).map((i) => i.title);
    expect(bulkOrder).toEqual((await titles(admin, backlog)).map((i) => i.title));
    expect(bulkOrder).toEqual(['E1', 'C4', 'E2', 'E3', 'C5', 'C1', 'C2', 'C6', 'C3', 'C7']);
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('writes 100 plain creates together: a handful of calls, the places and counters as 100 single creates leave them', async () => {
    const { org, admin, prefix, sprintIssues } = await orgWithProject();
    await admin.post(sprintIssues, { issue: { title: 'Before' } });
    const items = Array.from({ length: 100 }, (_, i) => ({
      issue: {
        title: `P${i}`,
        story_points: i % 5,
        assignee_id: i % 3 ? org.admin.id : org.member.id,
        description: 'x'.repeat(200),
      },
    }));
    const res = await admin.post(`${sprintIssues}/bulk`, { items });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { issue: { position: number } }) => r.issue.position)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 2),
    );
    expect(res.body.results.map((r: { issue: { issue_number: string } }) => r.issue.issue_number)).toEqual(
      Array.from({ length: 100 }, (_, i) => `${prefix}-${i + 2}`),
    );
    // The token, the path's list, what the creates check, their ids and numbers, then a few
    // transactions of up to 100 items each (an issue, its number's pointer, its assignee's entry).
    expect(res.dbCalls).toBeLessThanOrEqual(10);
    if (process.env.PRINT_CALLS) process.stdout.write(`100 plain creates: ${res.dbCalls} calls\n`);
    const list = await titles(admin, sprintIssues);
    expect(list.map((i) => i.title)).toEqual(['Before', ...items.map((i) => i.issue.title)]);
    expect(list.map((i) => i.position)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('writes plain updates of one list together: serial round trips bounded whatever their count, each answered as its PATCH', async () => {
    const { org, admin, sprintIssues, project } = await orgWithProject();
    await admin.post(`/api/v1/projects/${project.id}/labels`, { label: { name: 'ui' } });
    const created = await admin.post(`${sprintIssues}/bulk`, {
      items: Array.from({ length: 100 }, (_, i) => ({ issue: { title: `U${i}`, story_points: 1, assignee_id: org.member.id } })),
    });
    const issues = created.body.results.map((r: { issue: { id: number } }) => r.issue);
    const changes = (i: number) => ({
      status: (['in_progress', 'done', 'todo', 'cancelled'] as const)[i % 4],
      story_points: i % 8,
      ...(i % 3 === 0 ? { assignee_id: org.admin.id } : {}),
      ...(i % 5 === 0 ? { labels: ['ui'] } : {}),
      ...(i % 7 === 0 ? { title: `Renamed ${i}` } : {}),
    });
    /** What an update sets, as its answer shows it (labels as objects). */
    const shown = (i: number) => {
      const { labels, ...rest } = changes(i);
      return { ...rest, ...(labels ? { labels: [expect.objectContaining({ name: 'ui' })] } : {}) };
    };
    const run = async (count: number, offset: number) => {
      const items = issues.slice(offset, offset + count).map((issue: { id: number }, i: number) => ({
        id: issue.id,
        issue: changes(offset + i),
      }));
      return admin.post(`${sprintIssues}/bulk`, { items });
    };
    const ten = await run(10, 0);
    const ninety = await run(90, 10);
    for (const [res, offset] of [
      [ten, 0],
      [ninety, 10],
    ] as const) {
      expect(res.status).toBe(200);
      res.body.results.forEach((r: { status: number; issue: Record<string, unknown> }, k: number) => {
        const i = offset + k;
        expect(r.status, String(i)).toBe(200);
        expect(r.issue, String(i)).toMatchObject({ ...shown(i), position: i + 1, id: issues[i].id });
      });
    }
    // The token, the path's list, the issues (read side by side), their places (side by side), then
    // the transactions, one after another (they share the list's counters): up to 100 items each,
    // at most four for 100 updates. Item by item, each update took three serial round trips.
    if (process.env.PRINT_CALLS)
      process.stdout.write(
        `bulk updates: 10 -> ${ten.roundTrips} round trips, 90 -> ${ninety.roundTrips} (${ninety.dbCalls} calls)\n`,
      );
    expect(ten.roundTrips).toBeLessThanOrEqual(6);
    expect(ninety.roundTrips).toBeLessThanOrEqual(9);
    // Each reads back as answered, with its version one past the create's.
    const read = (await followPages<Record<string, unknown>>(admin, `${sprintIssues}?per_page=100`)).items;
    read.forEach((issue, i) => expect(issue, String(i)).toMatchObject({ ...shown(i), position: i + 1 }));
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('a run of updates with one refused (an assignee of another organisation, an issue changed meanwhile) answers each on its own', async () => {
    const { org, admin, backlog } = await orgWithProject();
    const a = (await admin.post(backlog, { issue: { title: 'A' } })).body;
    const b = (await admin.post(backlog, { issue: { title: 'B' } })).body;
    const c = (await admin.post(backlog, { issue: { title: 'C' } })).body;
    const res = await admin.post(`${backlog}/bulk`, {
      items: [
        { id: a.id, issue: { status: 'in_progress' } },
        { id: b.id, issue: { assignee_id: 999_999 } },
        { id: 999_998, issue: { title: 'Nobody' } },
        { id: c.id, issue: { story_points: 8, assignee_id: org.member.id } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 422, 404, 200]);
    expect(res.body.results[1].errors).toEqual(['assignee_id must be an account of this organisation']);
    expect(res.body.results[3].issue).toMatchObject({ story_points: 8, assignee_id: org.member.id, position: 3 });
    const list = await titles(admin, backlog);
    expect(list.map((i) => i.title)).toEqual(['A', 'B', 'C']);
    expect((await admin.get(`${backlog}/${b.id}`)).body.assignee_id).toBeNull();
    expect(await derivedDifferences(org.orgId)).toEqual([]);
  });

  it('replays the same answer for the same Idempotency-Key and body, writing nothing twice; another body is refused', async () => {
    const { admin, backlog } = await orgWithProject();
    const body = { items: [{ issue: { title: 'Once' } }, { issue: { title: 'Twice?' } }] };
    const headers = { 'Idempotency-Key': `bulk-${Date.now()}` };
    const first = await admin.post(`${backlog}/bulk`, body, { headers });
    const again = await admin.post(`${backlog}/bulk`, body, { headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await titles(admin, backlog)).map((i) => i.title)).toEqual(['Once', 'Twice?']);
    const other = await admin.post(`${backlog}/bulk`, { items: [{ issue: { title: 'Else' } }] }, { headers });
    expect(other.status).toBe(422);
    expect(other.body.errors).toEqual(['Idempotency-Key has already been used with a different request body']);
    expect(await titles(admin, backlog)).toHaveLength(2);
  });

  it('a dry run writes nothing and answers what the real run then answers', async () => {
    const { org, admin, backlog, sprint, sprintIssues } = await orgWithProject();
    const existing = (await admin.post(backlog, { issue: { title: 'Existing' } })).body;
    await admin.post(sprintIssues, { issue: { title: 'Planned' } });
    // The version an ETag names ("<version>-<digest>"), as `If-Match` would send it.
    const version = Number(/^"?(\d+)-/.exec((await admin.get(`${backlog}/${existing.id}`)).headers.get('etag') ?? '')?.[1]);
    expect(version).toBeGreaterThan(0);
    const body = {
      items: [
        { issue: { title: 'A', assignee_id: org.admin.id, story_points: 2, status: 'in_progress' } },
        { issue: { title: 'B', position: 1 } },
        { issue: { title: 'C', assignee_id: 424_242 } },
        { id: existing.id, version, issue: { sprint_id: sprint.id, position: 1, priority: 'high' } },
        { id: existing.id, issue: { title: 'Not here any more' } },
        { id: 123_456, issue: { title: 'Nobody' } },
        { issue: { title: 'D', parent_id: existing.id } },
      ],
    };
    const before = await readDerivedState(org.orgId);
    const dry = await admin.post(`${backlog}/bulk?dry_run=true`, body, { headers: { 'Idempotency-Key': 'dry-then-real' } });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    const after = await readDerivedState(org.orgId);
    expect(after.issues).toEqual(before.issues);
    expect(await titles(admin, backlog)).toHaveLength(1);
    const real = await admin.post(`${backlog}/bulk`, body, { headers: { 'Idempotency-Key': 'dry-then-real' } });
    expect(real.status).toBe(200);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect(real.body.results.map((r: { status: number }) => r.status)).toEqual([201, 201, 422, 200, 404, 404, 201]);
    expect(dry.body.results.map(comparable)).toEqual(real.body.results.map(comparable));
  });

  it('refuses an empty request and one of more than 100 items (422, nothing written)', async () => {
    const { admin, backlog } = await orgWithProject();
    for (const items of [[], Array.from({ length: 101 }, (_, i) => ({ issue: { title: `T${i}` } }))]) {
      const res = await admin.post(`${backlog}/bulk`, { items });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(['items must hold 1 to 100 items']);
    }
    expect((await admin.post(`${backlog}/bulk`, {})).body.errors).toEqual(['items is required']);
    expect(await titles(admin, backlog)).toHaveLength(0);
  });

  it("another organisation's project or sprint is 404 for the whole request, as on the single routes", async () => {
    const mine = await orgWithProject();
    const theirs = await orgWithProject();
    // Ids count per organisation: their second project has an id that names nothing of mine.
    const other = (await theirs.admin.post('/api/v1/projects', { project: { name: 'Theirs', prefix: randomPrefix() } })).body;
    const otherSprint = (await theirs.admin.post(`/api/v1/projects/${other.id}/sprints`, { sprint: { name: 'S' } })).body;
    const backlog = `/api/v1/projects/${other.id}/issues`;
    const sprintIssues = `/api/v1/projects/${other.id}/sprints/${otherSprint.id}/issues`;
    // And my own project with a sprint id only they have.
    const mySprint = `${mine.backlog.replace(/\/issues$/, '')}/sprints/${otherSprint.id}/issues`;
    const items = [{ issue: { title: 'Intruder' } }];
    for (const path of [backlog, sprintIssues, mySprint]) {
      const single = await mine.admin.post(path, { issue: { title: 'Intruder' } });
      const res = await mine.admin.post(`${path}/bulk`, { items });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(single.body);
    }
    expect(await titles(theirs.admin, backlog)).toHaveLength(0);
    expect(await titles(theirs.admin, sprintIssues)).toHaveLength(0);
  });

  it('counts one request against the rate limit', async () => {
    const { admin, backlog } = await orgWithProject();
    const before = Number((await admin.get(backlog)).headers.get('x-ratelimit-remaining'));
    const items = Array.from({ length: 20 }, (_, i) => ({ issue: { title: `R${i}` } }));
    const res = await admin.post(`${backlog}/bulk`, { items });
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(before - 1);
  });
});

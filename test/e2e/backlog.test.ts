import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

async function orgWithProject() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const prefix = randomPrefix();
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix } })).body;
  const sprints = `/api/v1/projects/${project.id}/sprints`;
  return { org, admin, prefix, project, sprints, backlog: `/api/v1/projects/${project.id}/issues` };
}

const createIssue = (client: ApiClient, base: string, fields: Record<string, unknown> = {}) =>
  client.post(base, { issue: { title: 'Idea', ...fields } });

const ids = (res: ApiResponse) => res.body.map((i: { id: number }) => i.id);

describe('project backlog', () => {
  it('creates uncommitted issues with sprint_id null and status backlog, numbered with the sprint issues', async () => {
    const { admin, prefix, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    const inSprint = (await createIssue(admin, `${sprints}/${sprint.id}/issues`)).body;
    const res = await createIssue(admin, backlog, { story_points: 8 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sprint_id: null, status: 'backlog', issue_number: `${prefix}-2`, story_points: 8 });
    expect(inSprint.issue_number).toBe(`${prefix}-1`);
    const explicit = (await createIssue(admin, backlog, { status: 'todo' })).body;
    expect(explicit.status).toBe('todo');
    const got = await admin.get(`${backlog}/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it('lists only the uncommitted issues, in position order, with totals from the counter', async () => {
    const { admin, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    await createIssue(admin, `${sprints}/${sprint.id}/issues`);
    const created: number[] = [];
    for (let i = 0; i < 3; i++) created.push((await createIssue(admin, backlog, { title: `B${i}` })).body.id);
    const list = await admin.get(`${backlog}?per_page=2`);
    expect(list.status).toBe(200);
    expect(ids(list)).toEqual(created.slice(0, 2));
    expect(list.body.every((i: { sprint_id: null }) => i.sprint_id === null)).toBe(true);
    expect(list.headers.get('x-total-count')).toBe('3');
    expect(list.headers.get('x-page')).toBe('1');
    expect(list.headers.get('x-per-page')).toBe('2');
    expect(list.headers.get('link')).toContain('rel="next"');
    expect(ids(await admin.get(`${backlog}?per_page=2&page=2`))).toEqual(created.slice(2));
  });

  it('pulls an issue into a sprint with sprint_id (appended there) and counts both sides', async () => {
    const { admin, project, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    const sprintIssues = `${sprints}/${sprint.id}/issues`;
    const resident = (await createIssue(admin, sprintIssues, { story_points: 1 })).body;
    const idea = (await createIssue(admin, backlog, { story_points: 5 })).body;
    const kept = (await createIssue(admin, backlog)).body;
    const pulled = await admin.patch(`${backlog}/${idea.id}`, { issue: { sprint_id: sprint.id, title: 'Committed' } });
    expect(pulled.status).toBe(200);
    expect(pulled.body).toMatchObject({ id: idea.id, sprint_id: sprint.id, title: 'Committed', status: 'backlog' });
    expect(ids(await admin.get(sprintIssues))).toEqual([resident.id, idea.id]);
    const rest = await admin.get(backlog);
    expect(ids(rest)).toEqual([kept.id]);
    expect(rest.headers.get('x-total-count')).toBe('1');
    expect((await admin.get(`${sprints}/${sprint.id}`)).body).toMatchObject({ issues_count: 2, total_story_points: 6 });
    // Only reachable under its new parent now.
    expect((await admin.get(`${backlog}/${idea.id}`)).status).toBe(404);
    expect((await admin.get(`${sprintIssues}/${idea.id}`)).body).toEqual(pulled.body);
    expect((await admin.get(`/api/v1/projects/${project.id}`)).status).toBe(200);
  });

  it('answers 404 under the backlog path for an issue that lives in a sprint', async () => {
    const { admin, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    const issue = (await createIssue(admin, `${sprints}/${sprint.id}/issues`)).body;
    expect((await admin.get(`${backlog}/${issue.id}`)).status).toBe(404);
    expect((await admin.patch(`${backlog}/${issue.id}`, { issue: { title: 'x' } })).status).toBe(404);
    expect((await admin.put(`${backlog}/${issue.id}`, { issue: { title: 'x' } })).status).toBe(404);
    expect((await admin.delete(`${backlog}/${issue.id}`)).status).toBe(404);
    expect((await admin.get(`${sprints}/${sprint.id}/issues/${issue.id}`)).body.title).toBe('Idea');
  });

  it('updates with PUT and PATCH and deletes a backlog issue', async () => {
    const { admin, backlog } = await orgWithProject();
    const issue = (await createIssue(admin, backlog, { description: 'd' })).body;
    expect((await admin.put(`${backlog}/${issue.id}`, { issue: { status: 'in_progress' } })).body).toMatchObject({
      status: 'in_progress',
      description: 'd',
    });
    expect((await admin.patch(`${backlog}/${issue.id}`, { issue: { story_points: 13 } })).body.story_points).toBe(13);
    expect((await admin.patch(`${backlog}/${issue.id}`, { issue: { story_points: 13.5 } })).status).toBe(422);
    const del = await admin.delete(`${backlog}/${issue.id}`);
    expect(del.status).toBe(204);
    expect((await admin.get(`${backlog}/${issue.id}`)).status).toBe(404);
    expect((await admin.get(backlog)).headers.get('x-total-count')).toBe('0');
  });

  it('sends the open issues of a completed sprint back to the end of the backlog, in their order', async () => {
    const { admin, project, sprints, backlog } = await orgWithProject();
    const waiting = (await createIssue(admin, backlog, { title: 'waiting' })).body;
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    const issues = `${sprints}/${sprint.id}/issues`;
    const make = async (title: string, status: string, points: number) =>
      (await createIssue(admin, issues, { title, status, story_points: points })).body;
    const todo = await make('todo', 'todo', 1);
    const done = await make('done', 'done', 2);
    const doing = await make('doing', 'in_progress', 3);
    const cancelled = await make('cancelled', 'cancelled', 4);
    const parked = await make('parked', 'backlog', 5);
    await admin.patch(`${issues}/${parked.id}`, { issue: { position: 1 } });
    await admin.post(`${sprints}/${sprint.id}/activate`);
    const completed = await admin.post(`${sprints}/${sprint.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({
      status: 'completed',
      issues_count: 2,
      total_story_points: 6,
      completed_story_points: 2,
    });
    expect((await admin.get(`${sprints}/${sprint.id}`)).body).toEqual(completed.body);
    expect(ids(await admin.get(issues))).toEqual([done.id, cancelled.id]);
    const back = await admin.get(backlog);
    expect(ids(back)).toEqual([waiting.id, parked.id, todo.id, doing.id]);
    expect(back.headers.get('x-total-count')).toBe('4');
    expect(back.body.map((i: { status: string }) => i.status)).toEqual(['backlog', 'backlog', 'todo', 'in_progress']);
    expect(back.body.every((i: { sprint_id: null }) => i.sprint_id === null)).toBe(true);
    expect((await admin.get(`${backlog}/${doing.id}`)).body.started_at).toBe(doing.started_at);
    expect((await admin.get(`${issues}/${todo.id}`)).status).toBe(404);
    expect((await admin.get(`/api/v1/projects/${project.id}`)).body.sprints_count).toBe(1);
    // Appending to the backlog afterwards still lands at the end.
    const later = (await createIssue(admin, backlog)).body;
    expect(ids(await admin.get(backlog)).at(-1)).toBe(later.id);
  });

  it('completes a sprint with more open issues than one transaction holds, counters exact', async () => {
    const { admin, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'Big' } })).body;
    const issues = `${sprints}/${sprint.id}/issues`;
    // 150 issues, 6 of them done (bulk writes of 75: the sprint's counters take one write per batch,
    // rather than 150 creates contending for them).
    for (let batch = 0; batch < 2; batch++) {
      const items = Array.from({ length: 75 }, (_, i) => ({
        issue: { title: 'Idea', story_points: 1, status: i % 25 === 0 ? 'done' : 'todo' },
      }));
      const res = await admin.post(`${issues}/bulk`, { items });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { status: number }) => r.status)).toEqual(items.map(() => 201));
    }
    await admin.post(`${sprints}/${sprint.id}/activate`);
    const completed = await admin.post(`${sprints}/${sprint.id}/completion`);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({
      status: 'completed',
      issues_count: 6,
      total_story_points: 6,
      completed_story_points: 6,
    });
    // 144 open issues, more than one transaction holds: the completion goes through `completing`
    // (docs/sprint-outcomes.md): authorizer, BatchGet and Query, begin, the finisher's GetItem and
    // Query, one allocation of places for all 144, and a transaction per batch of 32 (each issue
    // moves with its search record and its number's pointer), the last of which finishes: 12 (17
    // with an allocation per batch and a finish of its own).
    expect(completed.dbCalls).toBeLessThanOrEqual(12);
    expect(completed.body.report).toMatchObject({ carried_over: { issues: 144, story_points: 144 } });
    const back = await admin.get(`${backlog}?per_page=100`);
    expect(back.headers.get('x-total-count')).toBe('144');
    const positions = back.body.map((i: { position: number }) => i.position);
    expect(new Set(positions).size).toBe(positions.length);
    expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
  });

  it('stays within the DynamoDB call budget (reads <= 3, writes <= 4, auth included)', async () => {
    const { admin, sprints, backlog } = await orgWithProject();
    const sprint = (await admin.post(sprints, { sprint: { name: 'S' } })).body;
    const created = await createIssue(admin, backlog);
    await createIssue(admin, backlog);
    await createIssue(admin, backlog);
    const id = created.body.id;
    const calls = {
      create: created.dbCalls,
      list: (await admin.get(backlog)).dbCalls,
      get: (await admin.get(`${backlog}/${id}`)).dbCalls,
      patch: (await admin.patch(`${backlog}/${id}`, { issue: { title: 'x' } })).dbCalls,
      reorder: (await admin.patch(`${backlog}/${id}`, { issue: { position: 2 } })).dbCalls,
      pull: (await admin.patch(`${backlog}/${id}`, { issue: { sprint_id: sprint.id } })).dbCalls,
      delete: 0,
      completeWithOpenIssues: 0,
    };
    calls.delete = (await admin.delete(`${backlog}/${ids(await admin.get(backlog))[0]}`)).dbCalls;
    await admin.post(`${sprints}/${sprint.id}/activate`);
    calls.completeWithOpenIssues = (await admin.post(`${sprints}/${sprint.id}/complete`)).dbCalls;
    expect(calls.list).toBeLessThanOrEqual(3);
    expect(calls.get).toBeLessThanOrEqual(3);
    for (const [name, n] of Object.entries(calls)) {
      expect(n, name).toBeGreaterThan(0);
      // A completion with open issues also allocates their backlog positions (lib/db/issues/issues.ts appendToList).
      expect(n, name).toBeLessThanOrEqual(name === 'completeWithOpenIssues' ? 5 : 4);
    }
  });
});

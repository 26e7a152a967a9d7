import { describe, expect, it } from 'vitest';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function orgWithSprint() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const member = apiClient(gateway.baseUrl, org.member.token);
  const prefix = randomPrefix();
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix } })).body;
  const sprints = `/api/v1/projects/${project.id}/sprints`;
  const sprint = (await admin.post(sprints, { sprint: { name: 'Sprint 1' } })).body;
  return {
    org,
    admin,
    member,
    prefix,
    project,
    sprints,
    sprint,
    issues: `${sprints}/${sprint.id}/issues`,
    backlog: `/api/v1/projects/${project.id}/issues`,
  };
}

const createIssue = (client: ApiClient, base: string, fields: Record<string, unknown> = {}) =>
  client.post(base, { issue: { title: 'Fix login', ...fields } });

const ids = (res: ApiResponse) => res.body.map((i: { id: number }) => i.id);

describe('issues in a sprint', () => {
  it('creates issues at the end with todo status and PREFIX-n numbers', async () => {
    const { admin, prefix, project, sprint, issues } = await orgWithSprint();
    const first = await createIssue(admin, issues, { description: '# Steps\n1. log in', story_points: 3 });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      project_id: project.id,
      sprint_id: sprint.id,
      issue_number: `${prefix}-1`,
      title: 'Fix login',
      description: '# Steps\n1. log in',
      status: 'todo',
      story_points: 3,
      assignee_id: null,
      started_at: null,
      completed_at: null,
    });
    expect(first.body.created_at).toMatch(isoMs);
    const second = await createIssue(admin, issues, { title: '  Second  ' });
    expect(second.body).toMatchObject({ issue_number: `${prefix}-2`, title: 'Second', story_points: null });
    expect([first.body.position, second.body.position]).toEqual([1, 2]);
    const got = await admin.get(`${issues}/${first.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(first.body);
    expect(ids(await admin.get(issues))).toEqual([first.body.id, second.body.id]);
  });

  it('validates the payload and reports every problem', async () => {
    const { admin, issues } = await orgWithSprint();
    const bad = await admin.post(issues, {
      issue: { title: ' ', status: 'doing', story_points: 1001, assignee_id: 'me', description: 'x'.repeat(100_001) },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      "title can't be blank",
      'description is too long (maximum is 100000 characters)',
      'status must be one of: backlog, todo, in_progress, done, cancelled',
      'story_points must be between 0 and 1000',
      'assignee_id must be an integer',
    ]);
    for (const points of [-1, 2.5, '3']) {
      expect((await createIssue(admin, issues, { story_points: points })).status, String(points)).toBe(422);
    }
    expect((await createIssue(admin, issues, { title: 'x'.repeat(256) })).body.errors).toEqual([
      'title is too long (maximum is 255 characters)',
    ]);
    expect((await admin.post(issues, { title: 'no wrapper' })).body).toEqual({
      errors: ['issue is required', "body has an unknown key 'title' (known: issue)"],
    });
    for (const points of [0, 1000, null]) expect((await createIssue(admin, issues, { story_points: points })).status).toBe(201);
    expect((await admin.get(issues)).headers.get('x-total-count')).toBe('3');
  });

  it('accepts an assignee from the organisation only', async () => {
    const { org, admin, issues } = await orgWithSprint();
    // Account ids are per organisation: id 3 exists in the other organisation only.
    const other = await newOrganisation();
    const third = await createAccountInOrg(other.orgId, {
      name: 'Third',
      email: `third-${other.orgId}@example.com`,
      role: 'member',
    });
    expect(third.account.id).toBe(3);
    const ok = await createIssue(admin, issues, { assignee_id: org.member.id });
    expect(ok.body.assignee_id).toBe(org.member.id);
    const refused = await createIssue(admin, issues, { assignee_id: 3 });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: ['assignee_id must be an account of this organisation'] });
    expect((await admin.patch(`${issues}/${ok.body.id}`, { issue: { assignee_id: 3 } })).status).toBe(422);
    expect((await admin.patch(`${issues}/${ok.body.id}`, { issue: { assignee_id: null } })).body.assignee_id).toBeNull();
    expect((await admin.get(issues)).headers.get('x-total-count')).toBe('1');
  });

  it('uses up no number on a refused create: the next create gets the number the refused one would have had', async () => {
    const { admin, prefix, issues, backlog } = await orgWithSprint();
    const first = await createIssue(admin, issues, { title: 'One' });
    expect(first.body.issue_number).toBe(`${prefix}-1`);
    // Refused after the number was taken (the assignee is checked in the create's transaction).
    expect((await createIssue(admin, issues, { assignee_id: 999_999 })).status).toBe(422);
    expect((await createIssue(admin, backlog, { assignee_id: 999_999 })).status).toBe(422);
    const second = await createIssue(admin, backlog, { title: 'Two' });
    expect(second.status).toBe(201);
    expect(second.body.issue_number).toBe(`${prefix}-2`);
    expect((await admin.get(`/api/v1/issues/${prefix}-2`)).body.id).toBe(second.body.id);
    // The id given back is taken again too: ids stay consecutive within the project's block.
    expect(second.body.id).toBe(first.body.id + 1);
    const third = await createIssue(admin, issues, { title: 'Three' });
    expect(third.body.issue_number).toBe(`${prefix}-3`);
  });

  it('hands out each number once under concurrent creates, some refused; a refusal overtaken by another create leaves a gap', async () => {
    const { admin, prefix, backlog } = await orgWithSprint();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createIssue(admin, backlog, i % 2 ? { assignee_id: 999_999 } : { title: `C${i}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 422, 422, 422, 422]);
    const numbers = results.filter((r) => r.status === 201).map((r) => Number(r.body.issue_number.split('-')[1]));
    expect(new Set(numbers).size).toBe(4);
    const after = await createIssue(admin, backlog, { title: 'After' });
    const next = Number(after.body.issue_number.split('-')[1]);
    // At most the refused creates' numbers are skipped, and none is handed out twice.
    expect(next).toBeGreaterThan(Math.max(...numbers));
    expect(next).toBeLessThanOrEqual(9);
    expect(after.body.issue_number.startsWith(`${prefix}-`)).toBe(true);
  });

  it('sets started_at on entering in_progress and completed_at on entering done/cancelled, clearing it on leaving', async () => {
    const { admin, issues } = await orgWithSprint();
    const created = (await createIssue(admin, issues, { status: 'in_progress' })).body;
    expect(created.started_at).toMatch(isoMs);
    expect(created.completed_at).toBeNull();
    const done = (await admin.patch(`${issues}/${created.id}`, { issue: { status: 'done' } })).body;
    expect(done.started_at).toBe(created.started_at);
    expect(done.completed_at).toMatch(isoMs);
    const reopened = (await admin.put(`${issues}/${created.id}`, { issue: { status: 'todo' } })).body;
    expect(reopened).toMatchObject({ status: 'todo', started_at: created.started_at, completed_at: null });
    const restarted = (await admin.patch(`${issues}/${created.id}`, { issue: { status: 'in_progress' } })).body;
    expect(restarted.started_at).toBe(created.started_at);
    const cancelled = (await admin.patch(`${issues}/${created.id}`, { issue: { status: 'cancelled' } })).body;
    expect(cancelled.completed_at).toMatch(isoMs);
    const sameStatus = (await admin.patch(`${issues}/${created.id}`, { issue: { status: 'cancelled', title: 'Renamed' } })).body;
    expect(sameStatus.completed_at).toBe(cancelled.completed_at);
    const direct = (await createIssue(admin, issues, { status: 'done' })).body;
    expect(direct).toMatchObject({ started_at: null });
    expect(direct.completed_at).toMatch(isoMs);
    expect((await admin.get(`${issues}/${created.id}`)).body).toEqual(sameStatus);
  });

  it('keeps the sprint statistics exact through creates, updates, deletes and moves', async () => {
    const { admin, sprints, sprint, issues } = await orgWithSprint();
    const stats = async (id = sprint.id) => {
      const s = (await admin.get(`${sprints}/${id}`)).body;
      return [s.issues_count, s.total_story_points, s.completed_story_points];
    };
    const a = (await createIssue(admin, issues, { story_points: 5 })).body;
    const b = (await createIssue(admin, issues, { story_points: 3, status: 'done' })).body;
    const c = (await createIssue(admin, issues)).body;
    expect(await stats()).toEqual([3, 8, 3]);
    await admin.patch(`${issues}/${a.id}`, { issue: { status: 'done', story_points: 8 } });
    expect(await stats()).toEqual([3, 11, 11]);
    await admin.patch(`${issues}/${b.id}`, { issue: { story_points: null } });
    expect(await stats()).toEqual([3, 8, 8]);
    await admin.patch(`${issues}/${a.id}`, { issue: { status: 'cancelled' } });
    expect(await stats()).toEqual([3, 8, 0]);
    await admin.delete(`${issues}/${a.id}`);
    expect(await stats()).toEqual([2, 0, 0]);
    const other = (await admin.post(sprints, { sprint: { name: 'Sprint 2' } })).body;
    await admin.patch(`${issues}/${c.id}`, { issue: { sprint_id: other.id, story_points: 2 } });
    expect(await stats()).toEqual([1, 0, 0]);
    expect(await stats(other.id)).toEqual([1, 2, 0]);
    expect((await admin.get(issues)).headers.get('x-total-count')).toBe('1');
  });

  it('gives 50 concurrent creates 50 distinct numbers and exact counters', async () => {
    const { admin, prefix, sprints, sprint, issues } = await orgWithSprint();
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => createIssue(admin, issues, { title: `T${i}`, story_points: 1 })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = created.map((r) => r.body.issue_number as string);
    expect(new Set(numbers).size).toBe(50);
    expect(numbers.map((n) => Number(n.slice(prefix.length + 1))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    // Each answer is the place the issue took as its create saw the list (creates running at the
    // same time may answer the same place); the list reads 1..50.
    for (const r of created) expect(r.body.position).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body.position).toBeLessThanOrEqual(50);
    const s = (await admin.get(`${sprints}/${sprint.id}`)).body;
    expect([s.issues_count, s.total_story_points]).toEqual([50, 50]);
    const list = await admin.get(`${issues}?per_page=100`);
    expect(list.headers.get('x-total-count')).toBe('50');
    expect(list.body.map((i: { position: number }) => i.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Numbers are never reused, even after a delete.
    await admin.delete(`${issues}/${created[49]?.body.id}`);
    expect((await createIssue(admin, issues)).body.issue_number).toBe(`${prefix}-51`);
  });

  it('moves an issue to another sprint (appended) or to the backlog with sprint_id', async () => {
    const { admin, sprints, issues, backlog } = await orgWithSprint();
    const other = (await admin.post(sprints, { sprint: { name: 'Sprint 2' } })).body;
    const otherIssues = `${sprints}/${other.id}/issues`;
    const resident = (await createIssue(admin, otherIssues, { title: 'resident' })).body;
    const mover = (await createIssue(admin, issues, { title: 'mover' })).body;
    const moved = await admin.patch(`${issues}/${mover.id}`, { issue: { sprint_id: other.id } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: mover.id, sprint_id: other.id, issue_number: mover.issue_number });
    expect([resident.position, moved.body.position]).toEqual([1, 2]);
    expect(ids(await admin.get(otherIssues))).toEqual([resident.id, mover.id]);
    expect((await admin.get(issues)).body).toEqual([]);
    // Reachable only under its current parent.
    expect((await admin.get(`${issues}/${mover.id}`)).status).toBe(404);
    expect((await admin.get(`${backlog}/${mover.id}`)).status).toBe(404);
    expect((await admin.patch(`${issues}/${mover.id}`, { issue: { title: 'x' } })).status).toBe(404);
    expect((await admin.delete(`${issues}/${mover.id}`)).status).toBe(404);
    expect((await admin.get(`${otherIssues}/${mover.id}`)).body).toEqual(moved.body);

    const toBacklog = await admin.put(`${otherIssues}/${mover.id}`, { issue: { sprint_id: null } });
    expect(toBacklog.body).toMatchObject({ sprint_id: null, status: 'todo' });
    const backlogList = await admin.get(backlog);
    expect(ids(backlogList)).toEqual([mover.id]);
    expect(backlogList.headers.get('x-total-count')).toBe('1');
    expect((await admin.get(`${otherIssues}/${mover.id}`)).status).toBe(404);
    expect((await admin.get(`${sprints}/${other.id}`)).body.issues_count).toBe(1);
  });

  it('refuses to move an issue to a sprint of another project', async () => {
    const { admin, issues } = await orgWithSprint();
    const otherProject = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    await admin.post(`/api/v1/projects/${otherProject.id}/sprints`, { sprint: { name: 'a' } });
    const foreignSprint = (await admin.post(`/api/v1/projects/${otherProject.id}/sprints`, { sprint: { name: 'b' } })).body;
    const issue = (await createIssue(admin, issues)).body;
    const res = await admin.patch(`${issues}/${issue.id}`, { issue: { sprint_id: foreignSprint.id } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: ['sprint_id must be a sprint of this project'] });
    expect((await admin.get(`${issues}/${issue.id}`)).body).toEqual(issue);
  });

  it('makes the issues of a deleted sprint unreachable at once', async () => {
    const { admin, sprints, sprint, issues, backlog } = await orgWithSprint();
    const issue = (await createIssue(admin, issues)).body;
    expect((await admin.delete(`${sprints}/${sprint.id}`)).status).toBe(204);
    expect((await admin.get(`${issues}/${issue.id}`)).status).toBe(404);
    expect((await admin.get(issues)).status).toBe(404);
    expect((await admin.patch(`${issues}/${issue.id}`, { issue: { sprint_id: null } })).status).toBe(404);
    expect((await createIssue(admin, issues)).status).toBe(404);
    expect((await admin.get(`${backlog}/${issue.id}`)).status).toBe(404);
  });

  it('makes the sprints and issues of a deleted project unreachable at once', async () => {
    const { admin, project, sprints, sprint, issues, backlog } = await orgWithSprint();
    const issue = (await createIssue(admin, issues)).body;
    const loose = (await createIssue(admin, backlog)).body;
    expect((await admin.delete(`/api/v1/projects/${project.id}`)).status).toBe(204);
    for (const path of [`${sprints}/${sprint.id}`, `${issues}/${issue.id}`, issues, sprints, backlog, `${backlog}/${loose.id}`]) {
      expect((await admin.get(path)).status, path).toBe(404);
    }
    expect((await createIssue(admin, backlog)).status).toBe(404);
    expect((await admin.post(`${sprints}/${sprint.id}/activate`)).status).toBe(404);
  });

  it("answers 404 for another organisation's issues", async () => {
    const b = await orgWithSprint();
    const a = await orgWithSprint();
    const p2 = (await a.admin.post('/api/v1/projects', { project: { name: 'P2', prefix: randomPrefix() } })).body;
    const s2 = (await a.admin.post(`/api/v1/projects/${p2.id}/sprints`, { sprint: { name: 'S' } })).body;
    const foreign = `/api/v1/projects/${p2.id}/sprints/${s2.id}/issues`;
    const issue = (await createIssue(a.admin, foreign)).body;
    expect((await b.admin.get(`${foreign}/${issue.id}`)).status).toBe(404);
    expect((await b.admin.get(foreign)).status).toBe(404);
    expect((await b.admin.patch(`${foreign}/${issue.id}`, { issue: { title: 'x' } })).status).toBe(404);
    expect((await b.admin.delete(`${foreign}/${issue.id}`)).status).toBe(404);
    expect((await createIssue(b.admin, foreign)).status).toBe(404);
    expect((await a.admin.get(`${foreign}/${issue.id}`)).status).toBe(200);
  });

  it('ignores read-only fields on create and update', async () => {
    const { admin, issues } = await orgWithSprint();
    const res = await createIssue(admin, issues, {
      id: 999,
      issue_number: 'HACK-1',
      position: 1,
      started_at: '2000-01-01T00:00:00.000Z',
      completed_at: '2000-01-01T00:00:00.000Z',
      project_id: 12345,
      sprint_id: 777,
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(999);
    expect(res.body.issue_number).not.toBe('HACK-1');
    expect(res.body).toMatchObject({ started_at: null, completed_at: null });
    expect(res.body.project_id).not.toBe(12345);
    const upd = await admin.patch(`${issues}/${res.body.id}`, {
      issue: { id: 5, issue_number: 'X-1', created_at: '2000-01-01T00:00:00.000Z', started_at: 'now', title: 'Renamed' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      id: res.body.id,
      issue_number: res.body.issue_number,
      created_at: res.body.created_at,
      started_at: null,
    });
  });

  it('accepts PUT and PATCH as partial updates; PUT of a GET body changes nothing but updated_at', async () => {
    const { admin, issues } = await orgWithSprint();
    const a = (await createIssue(admin, issues, { description: 'keep', story_points: 2 })).body;
    const b = (await createIssue(admin, issues)).body;
    const c = (await createIssue(admin, issues)).body;
    const patched = await admin.patch(`${issues}/${b.id}`, { issue: { title: 'B' } });
    expect(patched.body).toMatchObject({ title: 'B', position: b.position });
    const put = await admin.put(`${issues}/${a.id}`, { issue: { story_points: 5 } });
    expect(put.body).toMatchObject({ description: 'keep', story_points: 5, title: 'Fix login' });
    const current = (await admin.get(`${issues}/${c.id}`)).body;
    const echoed = await admin.put(`${issues}/${c.id}`, { issue: current });
    expect(echoed.status).toBe(200);
    expect({ ...echoed.body, updated_at: current.updated_at }).toEqual(current);
    expect(ids(await admin.get(issues))).toEqual([a.id, b.id, c.id]);
  });

  it('paginates the list with Link, X-Total-Count, X-Page and X-Per-Page in position order', async () => {
    const { admin, issues } = await orgWithSprint();
    const created: number[] = [];
    for (let i = 0; i < 5; i++) created.push((await createIssue(admin, issues, { title: `I${i}` })).body.id);
    const page = await admin.get(`${issues}?per_page=2&page=2`);
    expect(page.status).toBe(200);
    expect(ids(page)).toEqual(created.slice(2, 4));
    expect(page.headers.get('x-total-count')).toBe('5');
    expect(page.headers.get('x-page')).toBe('2');
    expect(page.headers.get('x-per-page')).toBe('2');
    expect(page.dbCalls).toBeLessThanOrEqual(3);
    const link = page.headers.get('link') ?? '';
    for (const rel of ['first', 'prev', 'next', 'last']) expect(link).toContain(`rel="${rel}"`);
    expect((await admin.get(`${issues}?per_page=0`)).status).toBe(422);
  });

  it('lets a member create, update and delete issues', async () => {
    const { member, issues } = await orgWithSprint();
    const issue = (await createIssue(member, issues)).body;
    expect((await member.patch(`${issues}/${issue.id}`, { issue: { title: 'y' } })).status).toBe(200);
    expect((await member.delete(`${issues}/${issue.id}`)).status).toBe(204);
    expect((await member.get(`${issues}/${issue.id}`)).status).toBe(404);
    expect((await member.get(issues)).headers.get('x-total-count')).toBe('0');
  });

  it('stays within the DynamoDB call budget (reads <= 3, writes <= 4, auth included)', async () => {
    const { admin, sprints, issues } = await orgWithSprint();
    const other = (await admin.post(sprints, { sprint: { name: 'Sprint 2' } })).body;
    const created = await createIssue(admin, issues, { story_points: 1 });
    for (let i = 0; i < 4; i++) await createIssue(admin, issues);
    const id = created.body.id;
    const calls = {
      create: created.dbCalls,
      list: (await admin.get(issues)).dbCalls,
      get: (await admin.get(`${issues}/${id}`)).dbCalls,
      patch: (await admin.patch(`${issues}/${id}`, { issue: { status: 'done', title: 'n' } })).dbCalls,
      reorder: (await admin.patch(`${issues}/${id}`, { issue: { position: 3 } })).dbCalls,
      toEnd: (await admin.patch(`${issues}/${id}`, { issue: { position: 99 } })).dbCalls,
      toOtherSprint: (await admin.patch(`${issues}/${id}`, { issue: { sprint_id: other.id } })).dbCalls,
      toBacklog: (await admin.patch(`${sprints}/${other.id}/issues/${id}`, { issue: { sprint_id: null } })).dbCalls,
      delete: 0,
    };
    const rest = (await admin.get(issues)).body;
    calls.delete = (await admin.delete(`${issues}/${rest[0].id}`)).dbCalls;
    expect(calls.list).toBeLessThanOrEqual(3);
    expect(calls.get).toBeLessThanOrEqual(3);
    // Creating in a sprint reads the sprint beside the allocation (same round trip): its answer's
    // `position` is the sprint's count plus one (docs/issue-lists.md).
    for (const [name, n] of Object.entries(calls)) {
      expect(n, name).toBeGreaterThan(0);
      expect(n, name).toBeLessThanOrEqual(4);
    }
  });
});

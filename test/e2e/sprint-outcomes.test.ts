/**
 * Sprint outcomes over HTTP (docs/sprint-outcomes.md): carry-over on completion, the report frozen
 * at completion, velocity and burndown.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { randomPrefix, type ApiClient, orgWithClients, useGateway } from '../support/api.ts';

const gateway = useGateway();
const today = () => new Date().toISOString().slice(0, 10);

async function projectIn(admin: ApiClient, name = 'Outcomes') {
  const project = (await admin.post('/api/v1/projects', { project: { name, prefix: randomPrefix() } })).body;
  const base = `/api/v1/projects/${project.id}`;
  const sprint = async (fields: Record<string, unknown> = {}) =>
    (await admin.post(`${base}/sprints`, { sprint: { name: 'Sprint', ...fields } })).body as { id: number };
  const issue = async (sprintId: number | null, fields: Record<string, unknown>) => {
    const path = sprintId === null ? `${base}/issues` : `${base}/sprints/${sprintId}/issues`;
    const res = await admin.post(path, { issue: { title: 'Work', ...fields } });
    expect(res.status).toBe(201);
    return res.body as { id: number; story_points: number | null };
  };
  const ids = async (sprintId: number | null) =>
    (
      await admin.get(sprintId === null ? `${base}/issues?per_page=100` : `${base}/sprints/${sprintId}/issues?per_page=100`)
    ).body.map((i: { id: number }) => i.id);
  return { project, base, sprint, issue, ids };
}

/** An active sprint with 2 open issues (3 and 5 points), 1 done (8) and 1 cancelled (2). */
async function activeSprint(admin: ApiClient) {
  const p = await projectIn(admin);
  const s = await p.sprint({ start_date: today() });
  const open = [await p.issue(s.id, { story_points: 3 }), await p.issue(s.id, { story_points: 5, status: 'in_progress' })];
  await p.issue(s.id, { story_points: 8, status: 'done' });
  await p.issue(s.id, { story_points: 2, status: 'cancelled' });
  expect((await admin.post(`${p.base}/sprints/${s.id}/activate`)).status).toBe(200);
  return { ...p, s, open, path: `${p.base}/sprints/${s.id}` };
}

describe('carry-over on completion', () => {
  it('moves the open issues to the end of a sprint in planning, in their order, with exact counters on both', async () => {
    const { admin } = await orgWithClients(gateway);
    const { base, s, open, path, sprint, issue, ids } = await activeSprint(admin);
    const next = await sprint({ name: 'Next' });
    const already = await issue(next.id, { story_points: 1 });
    const res = await admin.post(`${path}/complete`, { carry_over: { sprint_id: next.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', actual_end_date: today(), issues_count: 2, total_story_points: 10 });
    expect(await ids(next.id)).toEqual([already.id, ...open.map((i) => i.id)]);
    expect(await ids(null)).toEqual([]);
    expect((await admin.get(`${base}/sprints/${next.id}`)).body).toMatchObject({ issues_count: 3, total_story_points: 9 });
    expect(await ids(s.id)).toHaveLength(2);
  });

  it('sends them to the end of the backlog without a body, with a null sprint_id, and under /completion', async () => {
    const { admin } = await orgWithClients(gateway);
    for (const [spelling, body] of [
      ['complete', undefined],
      ['complete', { carry_over: { sprint_id: null } }],
      ['completion', { carry_over: null }],
    ] as const) {
      const { path, open, issue, ids } = await activeSprint(admin);
      const waiting = await issue(null, {});
      const res = await admin.post(`${path}/${spelling}`, body);
      expect(res.status).toBe(200);
      expect(res.body.report.carried_over_to).toEqual({ sprint_id: null });
      expect(await ids(null)).toEqual([waiting.id, ...open.map((i) => i.id)]);
    }
  });

  it('refuses any other target with 422 {errors} and changes nothing', async () => {
    const { admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const { path, base, s, sprint, ids } = await activeSprint(admin);
    const elsewhere = await projectIn(admin, 'Elsewhere');
    const foreignProjectSprint = await elsewhere.sprint();
    const foreignOrg = await projectIn(other.admin);
    // Ids are per organisation: take one of the other organisation's that this one does not have.
    let foreignOrgSprint = await foreignOrg.sprint();
    while (foreignOrgSprint.id <= 10) foreignOrgSprint = await foreignOrg.sprint();
    const active = await sprint({ name: 'Active' });
    expect((await admin.post(`${base}/sprints/${active.id}/activate`)).status).toBe(200);
    const completed = await sprint({ name: 'Done' });
    expect((await admin.post(`${base}/sprints/${completed.id}/activate`)).status).toBe(200);
    expect((await admin.post(`${base}/sprints/${completed.id}/complete`)).status).toBe(200);
    const before = (await admin.get(path)).body;
    const beforeIds = await ids(s.id);
    for (const target of [foreignProjectSprint.id, foreignOrgSprint.id, active.id, completed.id, s.id, 999_999_999]) {
      const res = await admin.post(`${path}/complete`, { carry_over: { sprint_id: target } });
      expect(res.status, `target ${target}`).toBe(422);
      expect(res.body).toEqual({ errors: ['carry_over.sprint_id must be another sprint of this project in planning'] });
    }
    for (const body of [{ carry_over: { sprint_id: 'x' } }, { carry_over: 5 }, { carry_over: { sprint_id: 0 } }]) {
      const res = await admin.post(`${path}/completion`, body);
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatch(/^carry_over/);
    }
    expect((await admin.get(path)).body).toEqual(before);
    expect(await ids(s.id)).toEqual(beforeIds);
    // Another organisation (with no project of that id) cannot complete it at all.
    const stranger = await orgWithClients(gateway);
    expect((await stranger.admin.post(`${path}/complete`)).status).toBe(404);
  });

  it('honours Idempotency-Key with the body: a replay for the same body, 422 for another', async () => {
    const { admin } = await orgWithClients(gateway);
    const { path, sprint } = await activeSprint(admin);
    const next = await sprint({ name: 'Next' });
    const key = { headers: { 'Idempotency-Key': randomUUID() } };
    const body = { carry_over: { sprint_id: next.id } };
    const first = await admin.post(`${path}/complete`, body, key);
    expect(first.status).toBe(200);
    const again = await admin.post(`${path}/complete`, body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await admin.post(`${path}/complete`, { carry_over: null }, key)).status).toBe(422);
  });

  it('gives one 200 to concurrent completions with a carry-over; the others see it completed', async () => {
    const { admin } = await orgWithClients(gateway);
    const { path, base, open, sprint, ids } = await activeSprint(admin);
    const next = await sprint({ name: 'Next' });
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        admin.post(`${path}/${i % 2 ? 'complete' : 'completion'}`, { carry_over: { sprint_id: next.id } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422]);
    expect(await ids(next.id)).toEqual(open.map((i) => i.id));
    expect((await admin.get(`${base}/sprints/${next.id}`)).body).toMatchObject({ issues_count: 2, total_story_points: 8 });
    expect((await admin.get(`${base}/velocity`)).body.sprints).toHaveLength(1);
  });
});

describe('the report frozen at completion', () => {
  it('holds the commitment at activation, scope added and removed after it, completed and carried-over work, and dates', async () => {
    const { admin } = await orgWithClients(gateway);
    const { path, base, s, open, sprint, issue } = await activeSprint(admin);
    // After activation: one issue created in (13), one pulled in from the backlog (1), one moved out (3), one deleted (2 cancelled).
    await issue(s.id, { story_points: 13 });
    const pulled = await issue(null, { story_points: 1 });
    await admin.patch(`${base}/issues/${pulled.id}`, { issue: { sprint_id: s.id } });
    await admin.patch(`${path}/issues/${open[0]?.id}`, { issue: { sprint_id: null } });
    const cancelled = (await admin.get(`${path}/issues?per_page=100`)).body.find(
      (i: { status: string }) => i.status === 'cancelled',
    );
    await admin.delete(`${path}/issues/${cancelled.id}`);
    const next = await sprint({ name: 'Next' });

    expect((await admin.get(`${path}/report`)).status).toBe(404);
    const done = await admin.post(`${path}/complete`, { carry_over: { sprint_id: next.id } });
    expect(done.status).toBe(200);
    const report = {
      sprint_id: s.id,
      name: 'Sprint',
      start_date: today(),
      end_date: null,
      activated_at: expect.any(String),
      completed_at: done.body.updated_at,
      actual_end_date: today(),
      committed: { issues: 4, story_points: 18 },
      added: { issues: 2, story_points: 14 },
      removed: { issues: 2, story_points: 5 },
      completed: { issues: 1, story_points: 8 },
      cancelled: { issues: 0, story_points: 0 },
      carried_over: { issues: 3, story_points: 19 },
      carried_over_to: { sprint_id: next.id },
    };
    expect(done.body.report).toEqual(report);
    const got = await admin.get(`${path}/report`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(report);
    expect(got.dbCalls).toBeLessThanOrEqual(2);

    // Later edits to the sprint and its issues change the sprint, never its report.
    const doneIssue = (await admin.get(`${path}/issues`)).body[0];
    await admin.patch(`${path}/issues/${doneIssue.id}`, { issue: { story_points: 40, status: 'todo' } });
    await admin.patch(path, { sprint: { name: 'Renamed', end_date: '2099-01-01' } });
    await admin.post(`${base}/sprints/${next.id}/issues`, { issue: { title: 'later', story_points: 5 } });
    expect((await admin.get(`${path}/report`)).body).toEqual(report);
    const after = (await admin.get(path)).body;
    expect(after.total_story_points).toBe(40);
    expect(after.report).toEqual(report);
    expect((await admin.get(`${base}/velocity`)).body.sprints[0]).toMatchObject({
      name: 'Sprint',
      committed_story_points: 18,
      completed_story_points: 8,
    });
  });

  it('answers 404 for the report of a sprint not completed, and of another organisation', async () => {
    const { admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const { path, sprint, base } = await activeSprint(admin);
    expect((await admin.get(`${path}/report`)).body.error).toBe(
      'Report not found: the sprint is active; it has one once completed',
    );
    const planning = await sprint();
    expect((await admin.get(`${base}/sprints/${planning.id}/report`)).status).toBe(404);
    expect((await admin.get(path)).body.report).toBeNull();
    await admin.post(`${path}/complete`);
    expect((await admin.get(`${path}/report`)).status).toBe(200);
    expect((await other.admin.get(`${path}/report`)).status).toBe(404);
  });
});

describe('velocity', () => {
  it('lists the last N completed sprints, newest first, with committed and completed points and their averages, in 3 calls', async () => {
    const { admin } = await orgWithClients(gateway);
    const { base, sprint, issue } = await projectIn(admin);
    const empty = await admin.get(`${base}/velocity`);
    expect(empty.body).toEqual({
      project_id: Number(base.split('/').at(-1)),
      sprints: [],
      average_committed_story_points: null,
      average_completed_story_points: null,
    });
    const made: { id: number; committed: number; completed: number }[] = [];
    for (let n = 1; n <= 8; n++) {
      const s = await sprint({ name: `S${n}` });
      await issue(s.id, { story_points: n, status: 'done' });
      await issue(s.id, { story_points: 1 });
      await admin.post(`${base}/sprints/${s.id}/activate`);
      await admin.post(`${base}/sprints/${s.id}/complete`);
      made.push({ id: s.id, committed: n + 1, completed: n });
    }
    const res = await admin.get(`${base}/velocity`);
    expect(res.status).toBe(200);
    expect(res.dbCalls).toBeLessThanOrEqual(3);
    const last6 = made.slice(-6).reverse();
    expect(res.body.sprints.map((s: { sprint_id: number }) => s.sprint_id)).toEqual(last6.map((s) => s.id));
    expect(res.body.sprints[0]).toMatchObject({
      name: 'S8',
      committed_story_points: 9,
      completed_story_points: 8,
      actual_end_date: today(),
    });
    expect(res.body.average_completed_story_points).toBe(5.5);
    expect(res.body.average_committed_story_points).toBe(6.5);
    const two = await admin.get(`${base}/velocity?sprints=2`);
    expect(two.body.sprints).toHaveLength(2);
    expect(two.body.average_completed_story_points).toBe(7.5);
    expect((await admin.get(`${base}/velocity?sprints=50`)).body.sprints).toHaveLength(8);
    expect(two.dbCalls).toBeLessThanOrEqual(3);

    // A deleted sprint leaves the velocity with it.
    await admin.delete(`${base}/sprints/${made[7]?.id}`);
    expect((await admin.get(`${base}/velocity?sprints=1`)).body.sprints[0].sprint_id).toBe(made[6]?.id);
  });

  it('refuses sprints outside 1..50 with 422 {errors}, and another organisation with 404', async () => {
    const { admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const { base } = await projectIn(admin);
    for (const q of ['0', '51', '-1', 'x', '1.5', '']) {
      const res = await admin.get(`${base}/velocity?sprints=${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.errors[0]).toMatch(/^sprints /);
    }
    expect((await other.admin.get(`${base}/velocity`)).status).toBe(404);
    expect((await admin.get('/api/v1/projects/999999999/velocity')).status).toBe(404);
  });
});

describe('burndown', () => {
  it('starts at the open points at activation and follows the day, with the ideal line to the end date', async () => {
    const { admin } = await orgWithClients(gateway);
    const { base, sprint, issue } = await projectIn(admin);
    const s = await sprint({ start_date: today() });
    const path = `${base}/sprints/${s.id}`;
    expect((await admin.get(`${path}/burndown`)).status).toBe(404);
    const a = await issue(s.id, { story_points: 5 });
    await issue(s.id, { story_points: 3 });
    await admin.post(`${path}/activate`);
    await admin.patch(`${path}/issues/${a.id}`, { issue: { status: 'done' } });
    await issue(s.id, { story_points: 2 });
    const res = await admin.get(`${path}/burndown`);
    expect(res.status).toBe(200);
    expect(res.dbCalls).toBeLessThanOrEqual(2);
    expect(res.body).toEqual({
      sprint_id: s.id,
      status: 'active',
      start_date: today(),
      end_date: today(),
      committed_story_points: 8,
      days: [{ date: today(), remaining_story_points: 5, ideal_story_points: null }],
    });
  });
});

/**
 * Concurrency: many requests on the same sprint, issue or list at once. Counters, issue numbers and
 * positions must come out exact, every issue in exactly one list, and no update lost.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

/** What a careful client does: retries a 503/409 after Retry-After, with the same Idempotency-Key. */
async function withRetries(send: (headers: Record<string, string>) => Promise<ApiResponse>, stats: { retries: number }) {
  const headers = { 'Idempotency-Key': randomUUID() };
  for (let attempt = 0; ; attempt++) {
    const res = await send(headers);
    if ((res.status !== 503 && res.status !== 409) || attempt >= 10) return res;
    stats.retries++;
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

async function setup() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Busy', prefix: randomPrefix() } })).body;
  const pp = `/api/v1/projects/${project.id}`;
  const sprintA = (await admin.post(`${pp}/sprints`, { sprint: { name: 'A' } })).body;
  const sprintB = (await admin.post(`${pp}/sprints`, { sprint: { name: 'B' } })).body;
  return { org, admin, project, pp, sprintA, sprintB, memberId: org.member.id };
}

/** A whole list, every page. */
async function all(client: ApiClient, path: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const res = await client.get(`${path}?per_page=100&page=${page}`);
    expect(res.status).toBe(200);
    out.push(...res.body);
    if (res.body.length < 100) return out;
  }
}

function expectOrderedByPosition(list: Record<string, any>[]) {
  const positions = list.map((i) => i.position);
  expect(new Set(positions).size, 'positions are unique within the list').toBe(positions.length);
  expect(positions, 'the list is in position order').toEqual([...positions].sort((a, b) => a - b));
}

describe('concurrency', () => {
  it('100 parallel issue creates in one sprint: counters, issue numbers and positions exact', async () => {
    const { admin, project, pp, sprintA } = await setup();
    const base = `${pp}/sprints/${sprintA.id}/issues`;
    const stats = { retries: 0 };
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        withRetries((headers) => admin.post(base, { issue: { title: `Issue ${i}`, story_points: i % 8 } }, { headers }), stats),
      ),
    );
    const elapsed = Date.now() - started;
    expect(results.map((r) => r.status)).toEqual(new Array(100).fill(201));
    const created = results.map((r) => r.body);
    expect(new Set(created.map((i) => i.id)).size).toBe(100);
    // Issue numbers: one each, from the project's sequence; without refusals, exactly 1..100.
    const numbers = created.map((i) => Number(String(i.issue_number).replace(`${project.prefix}-`, '')));
    expect(new Set(numbers).size).toBe(100);
    if (stats.retries === 0) expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const list = await all(admin, base);
    expect(list).toHaveLength(100);
    expect(new Set(list.map((i) => i.id))).toEqual(new Set(created.map((i) => i.id)));
    expectOrderedByPosition(list);
    const sprint = (await admin.get(`${pp}/sprints/${sprintA.id}`)).body;
    expect(sprint.issues_count).toBe(100);
    expect(sprint.total_story_points).toBe(created.reduce((sum, i) => sum + i.story_points, 0));
    console.info(`100 parallel creates: ${elapsed} ms, ${stats.retries} client retries (503/409)`);
  }, 120_000);

  it('parallel moves (to another sprint, to the backlog, reorders) and deletes leave every count exact', async () => {
    const { admin, pp, sprintA, sprintB } = await setup();
    const inA = `${pp}/sprints/${sprintA.id}/issues`;
    const issues: Record<string, any>[] = [];
    for (let i = 0; i < 30; i++) issues.push((await admin.post(inA, { issue: { title: `I${i}`, story_points: 2 } })).body);
    const toB = issues.slice(0, 10);
    const toBacklog = issues.slice(10, 15);
    const deleted = issues.slice(15, 20);
    const reordered = issues.slice(20, 25);
    const stats = { retries: 0 };
    const results = await Promise.all([
      ...toB.map((i) =>
        withRetries((headers) => admin.patch(`${inA}/${i.id}`, { issue: { sprint_id: sprintB.id } }, { headers }), stats),
      ),
      ...toBacklog.map((i) =>
        withRetries((headers) => admin.patch(`${inA}/${i.id}`, { issue: { sprint_id: null } }, { headers }), stats),
      ),
      ...deleted.map((i) => withRetries(() => admin.delete(`${inA}/${i.id}`), stats)),
      ...reordered.map((i, k) =>
        withRetries((headers) => admin.patch(`${inA}/${i.id}`, { issue: { position: k + 1 } }, { headers }), stats),
      ),
    ]);
    for (const r of results) expect([200, 204], r.text).toContain(r.status);

    const [listA, listB, backlog] = await Promise.all([
      all(admin, inA),
      all(admin, `${pp}/sprints/${sprintB.id}/issues`),
      all(admin, `${pp}/issues`),
    ]);
    const ids = (l: Record<string, any>[]) => new Set(l.map((i) => i.id));
    const remainingA = issues.filter((i) => ![...toB, ...toBacklog, ...deleted].includes(i));
    expect(ids(listA)).toEqual(ids(remainingA));
    expect(ids(listB)).toEqual(ids(toB));
    expect(ids(backlog)).toEqual(ids(toBacklog));
    for (const list of [listA, listB, backlog]) expectOrderedByPosition(list);
    for (const i of listB) expect(i.sprint_id).toBe(sprintB.id);
    for (const i of backlog) expect(i.sprint_id).toBeNull();
    for (const i of deleted) expect((await admin.get(`${inA}/${i.id}`)).status).toBe(404);

    const [a, b] = await Promise.all([admin.get(`${pp}/sprints/${sprintA.id}`), admin.get(`${pp}/sprints/${sprintB.id}`)]);
    expect(a.body).toMatchObject({ issues_count: 10, total_story_points: 20 });
    expect(b.body).toMatchObject({ issues_count: 10, total_story_points: 20 });
  }, 120_000);

  it('concurrent PATCHes of different fields of one issue lose nothing', async () => {
    const { admin, pp, sprintA, memberId } = await setup();
    const inA = `${pp}/sprints/${sprintA.id}/issues`;
    for (let round = 0; round < 5; round++) {
      const issue = (await admin.post(inA, { issue: { title: 'Before', story_points: 1 } })).body;
      const path = `${inA}/${issue.id}`;
      const changes = [
        { title: `After ${round}` },
        { description: `Described ${round}` },
        { story_points: 13 },
        { status: 'in_progress' },
        { assignee_id: memberId },
      ];
      const stats = { retries: 0 };
      const results = await Promise.all(
        changes.map((c) => withRetries((headers) => admin.patch(path, { issue: c }, { headers }), stats)),
      );
      for (const r of results) expect(r.status, r.text).toBe(200);
      const after = (await admin.get(path)).body;
      expect(after).toMatchObject(Object.assign({}, ...changes));
      expect(after.started_at).not.toBeNull();
    }
    const sprint = (await admin.get(`${pp}/sprints/${sprintA.id}`)).body;
    expect(sprint).toMatchObject({ issues_count: 5, total_story_points: 5 * 13 });
  }, 120_000);

  it('concurrent PATCHes of different fields of one sprint and one project lose nothing', async () => {
    const { admin, project, pp, sprintA, memberId } = await setup();
    const sprintChanges = [
      { name: 'Renamed sprint' },
      { description: 'Sprint goal' },
      { start_date: '2026-03-02', end_date: '2026-03-13' },
      { sprint_lead_id: memberId },
    ];
    const projectChanges = [
      { name: 'Renamed project' },
      { description: 'About' },
      { documentation_url: 'https://docs.example.com' },
      { production_url: 'https://example.com' },
    ];
    const stats = { retries: 0 };
    const results = await Promise.all([
      ...sprintChanges.map((c) =>
        withRetries((h) => admin.patch(`${pp}/sprints/${sprintA.id}`, { sprint: c }, { headers: h }), stats),
      ),
      ...projectChanges.map((c) => withRetries((h) => admin.patch(pp, { project: c }, { headers: h }), stats)),
    ]);
    for (const r of results) expect(r.status, r.text).toBe(200);
    const sprint = (await admin.get(`${pp}/sprints/${sprintA.id}`)).body;
    const { sprint_lead_id: _lead, ...visible } = Object.assign({}, ...sprintChanges);
    expect(sprint).toMatchObject({ ...visible, slug: 'renamed-sprint' });
    expect((await admin.get(pp)).body).toMatchObject({ ...Object.assign({}, ...projectChanges), prefix: project.prefix });
  }, 120_000);

  it('parallel comment creates on one issue are all kept, listed oldest first', async () => {
    const { admin, pp, sprintA } = await setup();
    const issue = (await admin.post(`${pp}/sprints/${sprintA.id}/issues`, { issue: { title: 'Talked about' } })).body;
    const path = `${pp}/sprints/${sprintA.id}/issues/${issue.id}/comments`;
    const stats = { retries: 0 };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        withRetries((headers) => admin.post(path, { comment: { body: `c${i}` } }, { headers }), stats),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(new Array(40).fill(201));
    const list = await all(admin, path);
    expect(new Set(list.map((c) => c.id))).toEqual(new Set(results.map((r) => r.body.id)));
    // Oldest first by id; with 40 writers at once, created_at of neighbours may differ by the race.
    const listed = list.map((c) => c.id);
    expect(listed).toEqual([...listed].sort((x, y) => x - y));
  }, 120_000);
});

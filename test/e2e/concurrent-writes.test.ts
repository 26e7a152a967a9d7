/**
 * Bursts of issue writes into one sprint, sent at once with no client retry: every write that
 * loses a race is decided again by the service (lib/db/core/transactions.ts: rereadOnStale), so none
 * answers 5xx, and afterwards the lists read 1..n and every counter equals a recount of the
 * issues as stored (the rank counters as `issues:reindex` would rebuild them, the sprint's
 * counters as its issues add up).
 */
import { describe, expect, it } from 'vitest';
import { listIssues as storedList, type IssueItem } from '../../lib/db/issues/issues.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { getSprintItem } from '../../lib/db/projects/sprints.ts';
import { contributionOf, sumCounters } from '../../lib/services/issues.ts';
import { sprintCounters } from '../../lib/db/issues/counters.ts';
import { blockOf } from '../../lib/model/positions.ts';
import { rankIndex } from '../../lib/db/issues/counters.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

async function setup() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Busy', prefix: randomPrefix() } })).body;
  const pp = `/api/v1/projects/${project.id}`;
  const sprint = (await admin.post(`${pp}/sprints`, { sprint: { name: 'S' } })).body;
  return { orgId: org.orgId, admin, projectId: project.id as number, sprintId: sprint.id as number, pp };
}

/** `n` issues created 20 at a time; returns them in list order. */
async function seed(client: ApiClient, base: string, n: number, points = (i: number) => i % 5): Promise<Record<string, any>[]> {
  for (let i = 0; i < n; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, k) =>
        client.post(base, { issue: { title: `I${i + k}`, story_points: points(i + k) } }),
      ),
    );
    for (const r of batch) expect(r.status, r.text).toBe(201);
  }
  return listAll(client, base);
}

/** The whole list, every page, checking that it reads 1..n. */
async function listAll(client: ApiClient, base: string): Promise<Record<string, any>[]> {
  const all: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const res = await client.get(`${base}?per_page=100&page=${page}`);
    expect(res.status).toBe(200);
    all.push(...res.body);
    if (res.body.length < 100) break;
  }
  expect(
    all.map((i) => i.position),
    'places 1..n, no gap, no duplicate',
  ).toEqual(all.map((_, k) => k + 1));
  return all;
}

/** The list as stored (sort keys included), through the data layer. */
async function stored(orgId: number, projectId: number, sprintId: number | null): Promise<IssueItem[]> {
  const items: IssueItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await storedList(orgId, projectId, sprintId, { page: 1, perPage: 100, cursor });
    items.push(...page.issues.map((p) => p.item));
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** The rank counters of a list as `issues:reindex` would rebuild them from its stored keys. */
function recountedRanks(items: IssueItem[]): [number, number][] {
  const counts = new Map<number, number>();
  for (const item of items) counts.set(blockOf(item.position), (counts.get(blockOf(item.position)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** Rank counters and counters of the sprint and the backlog equal a recount of their issues. */
async function expectCountersExact(orgId: number, projectId: number, sprintId: number) {
  const [sprintItems, backlogItems, sprint, project] = await Promise.all([
    stored(orgId, projectId, sprintId),
    stored(orgId, projectId, null),
    getSprintItem(orgId, projectId, sprintId),
    getProjectItem(orgId, projectId),
  ]);
  expect(rankIndex(sprint), "the sprint's rank counters").toEqual(recountedRanks(sprintItems));
  expect(rankIndex(project), "the backlog's rank counters").toEqual(recountedRanks(backlogItems));
  expect(sprintCounters(sprint!)).toEqual(sumCounters(sprintItems.map(contributionOf)));
  expect(Number(project?.backlog_count ?? 0)).toBe(backlogItems.length);
  return { sprintItems, backlogItems };
}

/** A move's attempts, from its DynamoDB calls: the authorizer, then 3 per attempt (read, window, transaction). */
const attemptsOf = (res: ApiResponse) => (res.dbCalls - 1) / 3;

describe('concurrent writes in one sprint', () => {
  it('30 concurrent moves in a 60-issue sprint all succeed, and the list and its counters come out exact', async () => {
    const { orgId, admin, projectId, sprintId, pp } = await setup();
    const base = `${pp}/sprints/${sprintId}/issues`;
    const before = await seed(admin, base, 60);
    const movers = Array.from({ length: 30 }, (_, i) => before[(i * 7) % 60] as Record<string, any>);

    const started = Date.now();
    const moves = await Promise.all(
      movers.map((issue, i) => admin.patch(`${base}/${issue.id}`, { issue: { position: 1 + ((i * 11) % 59) } })),
    );
    const elapsed = Date.now() - started;

    expect(
      moves.map((r) => r.status),
      moves.find((r) => r.status !== 200)?.text,
    ).toEqual(Array(30).fill(200));
    const after = await listAll(admin, base);
    expect(new Set(after.map((i) => i.id))).toEqual(new Set(before.map((i) => i.id)));
    // Each issue read alone has the place the list shows.
    for (const k of [0, 17, 42, 59]) {
      expect((await admin.get(`${base}/${after[k]!.id}`)).body.position).toBe(k + 1);
    }
    const { sprintItems } = await expectCountersExact(orgId, projectId, sprintId);
    expect(sprintItems.map((i) => i.id)).toEqual(after.map((i) => i.id));
    const attempts = moves.map(attemptsOf);
    console.info(
      `30 concurrent moves: ${elapsed} ms, attempts per move: worst ${Math.max(...attempts)}, ` +
        `mean ${(attempts.reduce((a, b) => a + b, 0) / 30).toFixed(1)}`,
    );
  }, 180_000);

  it('50 concurrent writes of every kind in one sprint answer no 5xx, and lists and counters come out exact', async () => {
    const { orgId, admin, projectId, sprintId, pp } = await setup();
    const base = `${pp}/sprints/${sprintId}/issues`;
    const backlog = `${pp}/issues`;
    const inSprint = await seed(admin, base, 40);
    const inBacklog = await seed(admin, backlog, 4);
    const at = (i: number) => `${base}/${inSprint[i]!.id}`;

    // Issues 0-11 move within the sprint, 12-17 go to the backlog, 18-23 are deleted; status and
    // points changes hit 24-39 and also some of the moved and deleted ones (same-issue races).
    const writes: { kind: string; send: () => Promise<ApiResponse> }[] = [
      ...Array.from({ length: 8 }, (_, i) => ({
        kind: 'create',
        send: () => admin.post(base, { issue: { title: `New ${i}`, story_points: i % 4, status: i % 3 ? 'todo' : 'done' } }),
      })),
      ...Array.from({ length: 12 }, (_, i) => ({
        kind: 'move',
        send: () => admin.patch(at(i), { issue: { position: 1 + ((i * 13) % 40) } }),
      })),
      ...Array.from({ length: 6 }, (_, i) => ({
        kind: 'to backlog',
        send: () => admin.patch(at(12 + i), { issue: { sprint_id: null } }),
      })),
      ...inBacklog.map((issue, i) => ({
        kind: 'from backlog',
        send: () =>
          admin.patch(`${backlog}/${issue.id}`, { issue: { sprint_id: sprintId, ...(i % 2 ? { position: 1 + i * 5 } : {}) } }),
      })),
      ...Array.from({ length: 6 }, (_, i) => ({ kind: 'delete', send: () => admin.delete(at(18 + i)) })),
      ...Array.from({ length: 8 }, (_, i) => ({
        kind: 'status',
        send: () => admin.patch(at([24, 25, 26, 27, 28, 2, 5, 19][i]!), { issue: { status: i % 2 ? 'done' : 'in_progress' } }),
      })),
      ...Array.from({ length: 6 }, (_, i) => ({
        kind: 'points',
        send: () => admin.patch(at([30, 31, 32, 3, 13, 20][i]!), { issue: { story_points: 8 } }),
      })),
    ];
    expect(writes).toHaveLength(50);

    const started = Date.now();
    const results = await Promise.all(writes.map((w) => w.send()));
    const elapsed = Date.now() - started;

    const statuses = results.map((r, i) => `${writes[i]!.kind} ${r.status}`);
    expect(
      results.filter((r) => r.status >= 500).map((r) => r.text),
      statuses.join(', '),
    ).toEqual([]);
    results.forEach((r, i) => {
      const { kind } = writes[i]!;
      if (kind === 'create') expect(r.status).toBe(201);
      else if (kind === 'delete') expect(r.status).toBe(204);
      // An update of an issue deleted or moved away by a concurrent write finds it gone (404).
      else expect([200, 404], `${kind}: ${r.text}`).toContain(r.status);
    });
    for (const kind of ['move', 'to backlog', 'from backlog']) {
      results.forEach((r, i) => writes[i]!.kind === kind && expect(r.status, r.text).toBe(200));
    }

    const [sprintList, backlogList] = await Promise.all([listAll(admin, base), listAll(admin, backlog)]);
    const ids = (list: Record<string, any>[]) => new Set(list.map((i) => i.id));
    const created = results.filter((_, i) => writes[i]!.kind === 'create').map((r) => r.body.id);
    expect(ids(sprintList)).toEqual(
      new Set([...inSprint.slice(0, 12), ...inSprint.slice(24), ...inBacklog].map((i) => i.id).concat(created)),
    );
    expect(ids(backlogList)).toEqual(new Set(inSprint.slice(12, 18).map((i) => i.id)));
    const { sprintItems, backlogItems } = await expectCountersExact(orgId, projectId, sprintId);
    expect(sprintItems.map((i) => i.id)).toEqual(sprintList.map((i) => i.id));
    expect(backlogItems.map((i) => i.id)).toEqual(backlogList.map((i) => i.id));
    const sprint = (await admin.get(`${pp}/sprints/${sprintId}`)).body;
    expect(sprint.issues_count).toBe(sprintList.length);
    expect(sprint.total_story_points).toBe(sprintList.reduce((sum, i) => sum + (i.story_points ?? 0), 0));
    console.info(`50 concurrent mixed writes: ${elapsed} ms, ${results.filter((r) => r.status === 404).length} × 404`);
  }, 180_000);
});

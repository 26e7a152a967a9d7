import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

async function orgWithSprint() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const sprints = `/api/v1/projects/${project.id}/sprints`;
  const sprint = (await admin.post(sprints, { sprint: { name: 'Sprint 1' } })).body;
  return { admin, sprints, sprint, issues: `${sprints}/${sprint.id}/issues`, backlog: `/api/v1/projects/${project.id}/issues` };
}

async function createMany(client: ApiClient, base: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, (_, k) => client.post(base, { issue: { title: `I${i + k}` } })),
    );
    ids.push(...batch.map((r) => r.body.id as number));
  }
  // Concurrent creates append in allocation order: read the order back.
  const listed = await listAll(client, base);
  expect(new Set(listed)).toEqual(new Set(ids));
  return listed;
}

const order = (res: ApiResponse): number[] => res.body.map((i: { id: number }) => i.id);

/** The whole list, in order, checking that it reads 1..n (`position` is the place). */
async function listAll(client: ApiClient, base: string): Promise<number[]> {
  const all: { id: number; position: number }[] = [];
  let url: string | undefined = `${base}?per_page=100`;
  while (url) {
    const res: ApiResponse = await client.get(url);
    expect(res.status).toBe(200);
    all.push(...res.body);
    const next: string | undefined = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next ? new URL(next).pathname + new URL(next).search : undefined;
  }
  expect(all.map((i) => i.position)).toEqual(all.map((_, k) => k + 1));
  return all.map((i) => i.id);
}

/** What the list should be after moving `id` to place `k` (1-based; past the end means last). */
function expectedAfterMove(list: number[], id: number, k: number): number[] {
  const rest = list.filter((x) => x !== id);
  rest.splice(Math.min(k - 1, rest.length), 0, id);
  return rest;
}

describe('issue positions', () => {
  it('puts an issue at place k among its siblings; beyond the list means last', async () => {
    const { admin, issues } = await orgWithSprint();
    let list = await createMany(admin, issues, 6);
    for (const [index, k] of [
      [5, 1],
      [0, 3],
      [2, 6],
      [4, 2],
      [1, 99],
      [3, 5],
    ] as const) {
      const id = list[index] as number;
      const res = await admin.patch(`${issues}/${id}`, { issue: { position: k } });
      expect(res.status).toBe(200);
      list = expectedAfterMove(list, id, k);
      expect(await listAll(admin, issues)).toEqual(list);
      expect(res.body.position).toBe(Math.min(k, 6));
      expect((await admin.get(`${issues}/${id}`)).body.position).toBe(Math.min(k, 6));
    }
  });

  it('round-trips: the position read on one issue, sent on another, gives the second that place', async () => {
    const { admin, issues } = await orgWithSprint();
    let list = await createMany(admin, issues, 4);
    const created = (await admin.post(issues, { issue: { title: 'fifth' } })).body;
    expect(created.position).toBe(5);
    list = [...list, created.id];
    const first = (await admin.get(`${issues}/${list[0]}`)).body;
    expect(first.position).toBe(1);
    const moved = await admin.patch(`${issues}/${created.id}`, { issue: { position: first.position } });
    expect(moved.body.position).toBe(1);
    list = expectedAfterMove(list, created.id, 1);
    expect(await listAll(admin, issues)).toEqual(list);
    const third = (await admin.get(`${issues}/${list[2]}`)).body;
    expect(third.position).toBe(3);
    await admin.patch(`${issues}/${list[4]}`, { issue: { position: third.position } });
    list = expectedAfterMove(list, list[4] as number, 3);
    expect(await listAll(admin, issues)).toEqual(list);
  });

  it('refuses a place below 1 with 422 and writes nothing', async () => {
    const { admin, issues } = await orgWithSprint();
    const list = await createMany(admin, issues, 3);
    for (const position of [0, -1, 1.5, '2']) {
      const res = await admin.patch(`${issues}/${list[2]}`, { issue: { position } });
      expect(res.status, String(position)).toBe(422);
      expect(res.body.errors).toEqual([expect.stringContaining('position')]);
    }
    expect(await listAll(admin, issues)).toEqual(list);
  });

  it('reads 1..n in both lists after every kind of change: create, move, move across, delete, completion, sprint delete', async () => {
    const { admin, sprints, sprint, issues, backlog } = await orgWithSprint();
    let inSprint = await createMany(admin, issues, 6);
    let inBacklog = await createMany(admin, backlog, 4);
    const check = async () => {
      expect(await listAll(admin, issues)).toEqual(inSprint);
      expect(await listAll(admin, backlog)).toEqual(inBacklog);
    };
    await admin.patch(`${issues}/${inSprint[5]}`, { issue: { position: 2 } });
    inSprint = expectedAfterMove(inSprint, inSprint[5] as number, 2);
    await check();
    const across = inSprint[0] as number;
    await admin.patch(`${issues}/${across}`, { issue: { sprint_id: null, position: 2 } });
    inSprint = inSprint.filter((x) => x !== across);
    inBacklog = expectedAfterMove(inBacklog, across, 2);
    await check();
    const pulled = inBacklog[3] as number;
    await admin.patch(`${backlog}/${pulled}`, { issue: { sprint_id: sprint.id } });
    inBacklog = inBacklog.filter((x) => x !== pulled);
    inSprint = [...inSprint, pulled];
    await check();
    expect((await admin.delete(`${issues}/${inSprint[1]}`)).status).toBe(204);
    inSprint = inSprint.filter((x) => x !== inSprint[1]);
    expect((await admin.delete(`${backlog}/${inBacklog[0]}`)).status).toBe(204);
    inBacklog = inBacklog.slice(1);
    await check();
    // Completion returns the open issues to the end of the backlog, in sprint order.
    const done = inSprint[0] as number;
    await admin.patch(`${issues}/${done}`, { issue: { status: 'done' } });
    expect((await admin.post(`${sprints}/${sprint.id}/activate`)).status).toBe(200);
    expect((await admin.post(`${sprints}/${sprint.id}/complete`)).status).toBe(200);
    inBacklog = [...inBacklog, ...inSprint.filter((x) => x !== done)];
    inSprint = [done];
    await check();
    // A new sprint's list, then the sprint deleted: the backlog is untouched and still 1..n.
    const other = (await admin.post(sprints, { sprint: { name: 'Sprint 2' } })).body;
    await createMany(admin, `${sprints}/${other.id}/issues`, 3);
    expect((await admin.delete(`${sprints}/${other.id}`)).status).toBe(204);
    await check();
  }, 120_000);

  it('leaves an issue in place when the position sent is the one it has, or its own place', async () => {
    const { admin, issues } = await orgWithSprint();
    const list = await createMany(admin, issues, 4);
    const second = (await admin.get(`${issues}/${list[1]}`)).body;
    const same = await admin.put(`${issues}/${second.id}`, { issue: { position: second.position, title: 'Renamed' } });
    expect(same.body).toMatchObject({ position: second.position, title: 'Renamed' });
    const ownPlace = await admin.patch(`${issues}/${second.id}`, { issue: { position: 2 } });
    expect(ownPlace.body.position).toBe(second.position);
    expect(await listAll(admin, issues)).toEqual(list);
  });

  it('keeps order and unique positions through many moves into the same place (renumbering neighbours)', async () => {
    const { admin, issues } = await orgWithSprint();
    let list = await createMany(admin, issues, 30);
    for (let i = 0; i < 40; i++) {
      const id = list[list.length - 1 - (i % 5)] as number;
      const res = await admin.patch(`${issues}/${id}`, { issue: { position: 3 } });
      expect(res.status).toBe(200);
      expect(res.dbCalls).toBeLessThanOrEqual(4);
      list = expectedAfterMove(list, id, 3);
    }
    expect(await listAll(admin, issues)).toEqual(list);
  });

  it('orders the backlog the same way, and places an issue pulled into a sprint at k', async () => {
    const { admin, issues, backlog } = await orgWithSprint();
    let backlogList = await createMany(admin, backlog, 5);
    let sprintList = await createMany(admin, issues, 4);
    const id = backlogList[4] as number;
    expect((await admin.patch(`${backlog}/${id}`, { issue: { position: 1 } })).status).toBe(200);
    backlogList = expectedAfterMove(backlogList, id, 1);
    expect(await listAll(admin, backlog)).toEqual(backlogList);
    const pulled = await admin.patch(`${backlog}/${id}`, {
      issue: { sprint_id: (await admin.get(issues)).body[0].sprint_id, position: 2 },
    });
    expect(pulled.status).toBe(200);
    sprintList = expectedAfterMove(sprintList, id, 2);
    backlogList = backlogList.filter((x) => x !== id);
    expect(await listAll(admin, issues)).toEqual(sprintList);
    expect(await listAll(admin, backlog)).toEqual(backlogList);
    const back = await admin.patch(`${issues}/${sprintList[0]}`, { issue: { sprint_id: null, position: 99 } });
    expect(back.status).toBe(200);
    expect(await listAll(admin, backlog)).toEqual([...backlogList, sprintList[0]]);
  });

  it('keeps every listing ordered and complete while issues are being moved', async () => {
    const { admin, issues } = await orgWithSprint();
    let list = await createMany(admin, issues, 20);
    const all = new Set(list);
    let moving = true;
    const listings = (async () => {
      let n = 0;
      while (moving) {
        const res = await admin.get(`${issues}?per_page=100`);
        const positions = res.body.map((i: { position: number }) => i.position);
        expect(positions).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
        expect(new Set(order(res))).toEqual(all);
        n++;
      }
      return n;
    })();
    for (let i = 0; i < 25; i++) {
      const id = list[(i * 7) % list.length] as number;
      const k = 1 + ((i * 5) % 20);
      expect((await admin.patch(`${issues}/${id}`, { issue: { position: k } })).status).toBe(200);
      list = expectedAfterMove(list, id, k);
    }
    moving = false;
    expect(await listings).toBeGreaterThan(0);
    expect(await listAll(admin, issues)).toEqual(list);
  });

  it('keeps positions unique when moves into one list run concurrently', async () => {
    const { admin, issues } = await orgWithSprint();
    const list = await createMany(admin, issues, 12);
    const moves = await Promise.all(
      list.slice(4).map((id, i) => admin.patch(`${issues}/${id}`, { issue: { position: 1 + (i % 3) } })),
    );
    expect(moves.map((r) => r.status)).toEqual(Array(8).fill(200));
    const after = await listAll(admin, issues);
    expect(new Set(after)).toEqual(new Set(list));
  });

  it('reads 1..n in every list, every issue once, after 50 concurrent moves (and one issue read alone has its listed place)', async () => {
    const { admin, sprints, sprint, issues, backlog } = await orgWithSprint();
    const second = (await admin.post(sprints, { sprint: { name: 'Sprint 2' } })).body;
    const lists = [issues, `${sprints}/${second.id}/issues`, backlog];
    const before = [
      await createMany(admin, lists[0]!, 20),
      await createMany(admin, lists[1]!, 20),
      await createMany(admin, lists[2]!, 20),
    ];
    // Reorders in each of three lists, and moves across them, all at once: every 5th moves an
    // issue of the backlog into the first sprint.
    const moves = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const from = i % 3;
        const id = before[from]![i % 5 === 4 && from === 2 ? 19 - Math.floor(i / 5) : (i * 7) % 15] as number;
        const crossing = i % 5 === 4 && from === 2;
        const body = crossing ? { sprint_id: sprint.id, position: 1 + ((i * 3) % 20) } : { position: 1 + ((i * 11) % 22) };
        return admin.patch(`${lists[from]}/${id}`, { issue: body });
      }),
    );
    // A move that lost its race for good answers 503 and changed nothing; one that found its issue
    // moved away by another is 404.
    for (const r of moves) expect([200, 404, 503]).toContain(r.status);
    expect(moves.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(25);
    const after = await Promise.all(lists.map((l) => listAll(admin, l)));
    expect(new Set(after.flat())).toEqual(new Set(before.flat()));
    expect(after.flat()).toHaveLength(60);
    for (const [n, list] of after.entries()) {
      for (const k of [0, Math.floor(list.length / 2), list.length - 1]) {
        expect((await admin.get(`${lists[n]}/${list[k]}`)).body.position).toBe(k + 1);
      }
      expect((await admin.get(lists[n]!)).headers.get('x-total-count')).toBe(String(list.length));
    }
  }, 120_000);

  it('costs the same DynamoDB calls to move an issue in a sprint of 120 as in a sprint of 5', async () => {
    const small = await orgWithSprint();
    const big = await orgWithSprint();
    const smallList = await createMany(small.admin, small.issues, 5);
    const bigList = await createMany(big.admin, big.issues, 120);
    const cost = async (client: ApiClient, base: string, id: number, k: number) => {
      const res = await client.patch(`${base}/${id}`, { issue: { position: k } });
      expect(res.status).toBe(200);
      return res.dbCalls;
    };
    const smallCosts = [
      await cost(small.admin, small.issues, smallList[4]!, 1),
      await cost(small.admin, small.issues, smallList[0]!, 3),
    ];
    const bigCosts = [await cost(big.admin, big.issues, bigList[119]!, 1), await cost(big.admin, big.issues, bigList[0]!, 90)];
    expect(bigCosts).toEqual(smallCosts);
    for (const n of [...smallCosts, ...bigCosts]) expect(n).toBeLessThanOrEqual(4);
    const toEnd = await big.admin.patch(`${big.issues}/${bigList[5]}`, { issue: { position: 1000 } });
    expect(toEnd.dbCalls).toBeLessThanOrEqual(4);
    expect((await listAll(big.admin, big.issues)).at(-1)).toBe(bigList[5]);
  }, 120_000);
});

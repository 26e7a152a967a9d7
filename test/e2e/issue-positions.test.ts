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

/** The whole list, in order, checking that it is sorted by (position, id) with unique positions. */
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
  for (let i = 1; i < all.length; i++) expect(all[i]!.position).toBeGreaterThan(all[i - 1]!.position);
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
      expect(res.body.position).toBe((await admin.get(`${issues}/${id}`)).body.position);
    }
  });

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
        expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
        expect(new Set(positions).size).toBe(20);
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

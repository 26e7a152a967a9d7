import { describe, expect, it } from 'vitest';
import { keys } from '../../lib/db/core/keys.ts';
import { deleteSprintIssues } from '../../lib/jobs/cascade.ts';
import { getItem } from '../../lib/db/core/transactions.ts';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';

/**
 * Relations between issues (`/issues/{issue_key}/relations`): stored on both issues with the
 * inverse type, written and removed together, and the `blocked` flag the `open-blockers`
 * derivation keeps on a blocked issue (lib/model/derivations.ts).
 */

const gateway = useGateway();

interface Issue {
  id: number;
  issue_number: string;
  project_id: number;
  sprint_id: number | null;
  status: string;
  blocked: boolean;
}

async function setup() {
  const clients = await orgWithClients(gateway);
  const { admin } = clients;
  const project = async (name: string) => {
    const p = (await admin.post('/api/v1/projects', { project: { name, prefix: randomPrefix() } })).body;
    const sprint = (await admin.post(`/api/v1/projects/${p.id}/sprints`, { sprint: { name: 'One' } })).body;
    return {
      id: p.id as number,
      backlog: `/api/v1/projects/${p.id}`,
      sprint: `/api/v1/projects/${p.id}/sprints/${sprint.id}`,
    };
  };
  const a = await project('Apollo');
  const b = await project('Gemini');
  const issue = async (list: string, title: string, extra: object = {}): Promise<Issue> => {
    const res = await admin.post(`${list}/issues`, { issue: { title, ...extra } });
    expect(res.status).toBe(201);
    return res.body;
  };
  return { ...clients, a, b, issue };
}

const relations = (c: ApiClient, key: string) => c.get(`/api/v1/issues/${key}/relations`);
const relate = (c: ApiClient, key: string, type: string, other: string) =>
  c.post(`/api/v1/issues/${key}/relations`, { relation: { type, issue_key: other } });
const byKey = async (c: ApiClient, key: string): Promise<Issue> => (await c.get(`/api/v1/issues/${key}`)).body;
const setStatus = async (c: ApiClient, issue: Issue, status: string) => {
  const list = issue.sprint_id === null ? '' : `/sprints/${issue.sprint_id}`;
  const res = await c.patch(`/api/v1/projects/${issue.project_id}${list}/issues/${issue.id}`, { issue: { status } });
  expect(res.status).toBe(200);
  return res.body as Issue;
};

describe('relations', () => {
  it('show on both issues with the inverse type and one id, across projects, and go from both when removed from either', async () => {
    const { member, a, b, issue } = await setup();
    const one = await issue(a.backlog, 'Heat shield');
    const two = await issue(b.sprint, 'Re-entry');
    const three = await issue(a.sprint, 'Same as the heat shield');

    const created = await relate(member, one.issue_number.toLowerCase(), 'blocks', two.issue_number.toLowerCase());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: `${one.id}-blocks-${two.id}`,
      type: 'blocks',
      issue: { id: two.id, issue_number: two.issue_number, project_id: b.id },
      created_at: expect.any(String),
    });
    expect((await relate(member, three.issue_number, 'duplicates', one.issue_number)).status).toBe(201);
    expect((await relate(member, two.issue_number, 'relates_to', three.issue_number)).status).toBe(201);

    const seen = async (key: string) =>
      ((await relations(member, key)).body as { id: string; type: string; issue: { id: number } }[])
        .map((r) => `${r.type} ${r.issue.id} (${r.id})`)
        .sort();
    expect(await seen(one.issue_number)).toEqual(
      [`blocks ${two.id} (${one.id}-blocks-${two.id})`, `duplicated_by ${three.id} (${three.id}-duplicates-${one.id})`].sort(),
    );
    const relatesId = `${Math.min(two.id, three.id)}-relates_to-${Math.max(two.id, three.id)}`;
    expect(await seen(two.issue_number)).toEqual(
      [`blocked_by ${one.id} (${one.id}-blocks-${two.id})`, `relates_to ${three.id} (${relatesId})`].sort(),
    );
    expect(await seen(three.issue_number)).toEqual(
      [`duplicates ${one.id} (${three.id}-duplicates-${one.id})`, `relates_to ${two.id} (${relatesId})`].sort(),
    );

    // Removed from the side that did not create it: gone from both.
    expect((await member.delete(`/api/v1/issues/${two.issue_number}/relations/${one.id}-blocks-${two.id}`)).status).toBe(204);
    expect(await seen(one.issue_number)).toEqual([`duplicated_by ${three.id} (${three.id}-duplicates-${one.id})`]);
    expect(await seen(two.issue_number)).toEqual([`relates_to ${three.id} (${relatesId})`]);
    expect((await member.delete(`/api/v1/issues/${one.issue_number}/relations/${one.id}-blocks-${two.id}`)).status).toBe(404);
    expect((await member.delete(`/api/v1/issues/${one.issue_number}/relations/not-an-id`)).status).toBe(404);
  });

  it('refuse an issue related to itself, an unknown other issue, a second relation of a kind, and the 51st, writing nothing', async () => {
    const { org, admin, a, b, issue } = await setup();
    const one = await issue(a.backlog, 'Hub');
    const two = await issue(b.backlog, 'Spoke');
    const errorsOf = (res: { status: number; body: { errors: string[] } }) => {
      expect(res.status).toBe(422);
      return res.body.errors.join('; ');
    };
    expect(errorsOf(await relate(admin, one.issue_number, 'blocks', one.issue_number.toLowerCase()))).toMatch(/itself/);
    expect(errorsOf(await relate(admin, one.issue_number, 'blocks', 'ZZZZ-999999'))).toMatch(
      /names no issue of this organisation \(ZZZZ-999999\)/,
    );
    expect(errorsOf(await relate(admin, one.issue_number, 'follows', two.issue_number))).toMatch(/type must be one of/);
    expect(errorsOf(await relate(admin, one.issue_number, 'blocks', 'not a key'))).toMatch(/issue_key must be an issue key/);
    expect((await relate(admin, 'ZZZZ-999999', 'blocks', one.issue_number)).status).toBe(404);

    expect((await relate(admin, one.issue_number, 'blocks', two.issue_number)).status).toBe(201);
    // The same kind again, in either direction.
    expect(errorsOf(await relate(admin, one.issue_number, 'blocks', two.issue_number))).toMatch(/already/);
    expect(errorsOf(await relate(admin, two.issue_number, 'blocks', one.issue_number))).toMatch(/already/);
    expect(errorsOf(await relate(admin, one.issue_number, 'blocked_by', two.issue_number))).toMatch(/already/);
    // Another kind between the same two is fine.
    expect((await relate(admin, two.issue_number, 'relates_to', one.issue_number)).status).toBe(201);

    // 48 more, seeded as the relation write stores them (both sides), to reach the limit fast.
    const spokes = await Promise.all(Array.from({ length: 48 }, (_, i) => issue(a.backlog, `Spoke ${i}`)));
    const side = (other: Issue) => ({
      type: 'relates_to',
      project_id: other.project_id,
      issue_id: other.id,
      issue_number: other.issue_number,
      created_at: new Date().toISOString(),
    });
    const idOf = (x: Issue) => `${Math.min(x.id, one.id)}-relates_to-${Math.max(x.id, one.id)}`;
    await Promise.all([
      ...spokes.map((x) => setRelation(org.orgId, x, idOf(x), side(one), true)),
      ...spokes.map((x) => setRelation(org.orgId, one, idOf(x), side(x), false)),
    ]);
    expect((await relations(admin, one.issue_number)).body).toHaveLength(50);
    const extra = await issue(a.backlog, 'One too many');
    expect(errorsOf(await relate(admin, one.issue_number, 'relates_to', extra.issue_number))).toMatch(/50 relations/);
    expect(errorsOf(await relate(admin, extra.issue_number, 'relates_to', one.issue_number))).toMatch(/50 relations/);
    expect((await relations(admin, one.issue_number)).body).toHaveLength(50);
    expect((await relations(admin, extra.issue_number)).body).toEqual([]);
  }, 120_000);

  it('make an issue blocked while a blocker is neither done nor cancelled, on every representation', async () => {
    const { org, member, a, b, issue } = await setup();
    const blocker = await issue(a.backlog, 'Blocker');
    const second = await issue(b.backlog, 'Second blocker', { status: 'done' });
    const blocked = await issue(a.sprint, 'Blocked');
    expect(blocked.blocked).toBe(false);

    const rel = (await relate(member, blocked.issue_number, 'blocked_by', blocker.issue_number)).body;
    const isBlocked = async () => {
      const one = await byKey(member, blocked.issue_number);
      const list = (await member.get(`${a.sprint}/issues`)).body as Issue[];
      const direct = (await member.get(`${a.sprint}/issues/${blocked.id}`)).body as Issue;
      expect(list.find((i) => i.id === blocked.id)?.blocked).toBe(one.blocked);
      expect(direct.blocked).toBe(one.blocked);
      return one.blocked;
    };
    expect(await isBlocked()).toBe(true);
    expect((await byKey(member, blocker.issue_number)).blocked).toBe(false);

    // A done blocker does not block; a second, open one does.
    expect((await relate(member, second.issue_number, 'blocks', blocked.issue_number)).status).toBe(201);
    expect(await isBlocked()).toBe(true);
    await setStatus(member, blocker, 'done');
    expect(await isBlocked()).toBe(false);
    await setStatus(member, second, 'in_progress');
    expect(await isBlocked()).toBe(true);
    await setStatus(member, second, 'cancelled');
    expect(await isBlocked()).toBe(false);
    await setStatus(member, blocker, 'todo');
    expect(await isBlocked()).toBe(true);

    // Removing the open blocker's relation (from the blocked side) unblocks; removing the closed one changes nothing.
    expect((await member.delete(`/api/v1/issues/${blocked.issue_number}/relations/${rel.id}`)).status).toBe(204);
    expect(await isBlocked()).toBe(false);
    const closedRel = `${second.id}-blocks-${blocked.id}`;
    expect((await member.delete(`/api/v1/issues/${blocked.issue_number}/relations/${closedRel}`)).status).toBe(204);
    expect(await isBlocked()).toBe(false);
    expect(await openBlockers(org.orgId, blocked)).toBe(0);
  });

  it('keep blocked through sprint completion, which moves open issues without changing their status', async () => {
    const { admin, a, issue } = await setup();
    const blocker = await issue(a.sprint, 'Open blocker');
    const blocked = await issue(a.sprint, 'Blocked');
    expect((await relate(admin, blocker.issue_number, 'blocks', blocked.issue_number)).status).toBe(201);
    expect((await admin.post(`${a.sprint}/activate`, {})).status).toBe(200);
    expect((await admin.post(`${a.sprint}/complete`, {})).status).toBe(200);
    const moved = await byKey(admin, blocker.issue_number);
    expect(moved.sprint_id).toBeNull();
    expect((await byKey(admin, blocked.issue_number)).blocked).toBe(true);
    await setStatus(admin, moved, 'done');
    expect((await byKey(admin, blocked.issue_number)).blocked).toBe(false);
  });

  it('go from the other issues when an issue is deleted, with the counts its blocking moved', async () => {
    const { org, admin, a, b, issue } = await setup();
    const blocker = await issue(a.backlog, 'Deleted blocker');
    const blocked = await issue(b.backlog, 'Blocked');
    const related = await issue(b.sprint, 'Related');
    const blocks = (await relate(admin, blocker.issue_number, 'blocks', blocked.issue_number)).body;
    expect((await relate(admin, related.issue_number, 'relates_to', blocker.issue_number)).status).toBe(201);
    // The blocked issue is blocked by the deleted one and by one that stays.
    const stays = await issue(a.backlog, 'Stays');
    expect((await relate(admin, stays.issue_number, 'blocks', blocked.issue_number)).status).toBe(201);

    expect((await admin.delete(`${a.backlog}/issues/${blocker.id}`)).status).toBe(204);
    // In the delete's own transaction: no wait.
    expect(((await relations(admin, blocked.issue_number)).body as { id: string }[]).map((r) => r.id)).toEqual([
      `${stays.id}-blocks-${blocked.id}`,
    ]);
    expect((await relations(admin, related.issue_number)).body).toEqual([]);
    expect(await openBlockers(org.orgId, blocked)).toBe(1);
    await setStatus(admin, stays, 'done');
    expect((await byKey(admin, blocked.issue_number)).blocked).toBe(false);
    expect(await openBlockers(org.orgId, blocked)).toBe(0);
    void blocks;

    // A deleted blocked issue: its blocker's status can still change (the blocker no longer counts on it).
    const blocker2 = await issue(a.backlog, 'Blocker of a deleted issue');
    const gone = await issue(b.backlog, 'Deleted blocked');
    expect((await relate(admin, blocker2.issue_number, 'blocks', gone.issue_number)).status).toBe(201);
    expect((await admin.delete(`${b.backlog}/issues/${gone.id}`)).status).toBe(204);
    expect((await relations(admin, blocker2.issue_number)).body).toEqual([]);
    await setStatus(admin, blocker2, 'done');
  });

  it("go from issues outside a deleted sprint through the sprint's cascade, with the counts they moved", async () => {
    const { org, admin, a, b, issue } = await setup();
    const inSprint = await issue(a.sprint, 'Blocker in the doomed sprint');
    const closedInSprint = await issue(a.sprint, 'Done blocker in the doomed sprint', { status: 'done' });
    const outside = await issue(b.backlog, 'Blocked outside');
    const blockerOutside = await issue(b.backlog, 'Blocker outside');
    expect((await relate(admin, inSprint.issue_number, 'blocks', outside.issue_number)).status).toBe(201);
    expect((await relate(admin, closedInSprint.issue_number, 'blocks', outside.issue_number)).status).toBe(201);
    expect((await relate(admin, blockerOutside.issue_number, 'blocks', inSprint.issue_number)).status).toBe(201);
    expect((await relate(admin, inSprint.issue_number, 'relates_to', closedInSprint.issue_number)).status).toBe(201);
    expect((await byKey(admin, outside.issue_number)).blocked).toBe(true);

    const sprintId = inSprint.sprint_id as number;
    expect((await admin.delete(a.sprint)).status).toBe(204);
    // Run here as the stream consumer runs it (the poller may run it too: every step is conditional).
    await deleteSprintIssues(org.orgId, a.id, sprintId);
    await deleteSprintIssues(org.orgId, a.id, sprintId);
    expect((await relations(admin, outside.issue_number)).body).toEqual([]);
    expect((await relations(admin, blockerOutside.issue_number)).body).toEqual([]);
    expect(await openBlockers(org.orgId, outside)).toBe(0);
    expect((await byKey(admin, outside.issue_number)).blocked).toBe(false);
    await setStatus(admin, blockerOutside, 'done');
  });

  it('keep the count exact under concurrent status changes, relation writes and removals', async () => {
    const { org, admin, member, a, b, issue } = await setup();
    const blocked = await issue(a.backlog, 'Blocked by many');
    const blockers = await Promise.all([0, 1, 2, 3].map((i) => issue(i % 2 ? a.backlog : b.sprint, `Blocker ${i}`)));
    await Promise.all(
      blockers.map(async (x, i) => {
        const c = i % 2 ? admin : member;
        expect((await relate(c, x.issue_number, 'blocks', blocked.issue_number)).status).toBe(201);
        await setStatus(c, x, 'done');
        await setStatus(c, x, 'in_progress');
        if (i < 2) await setStatus(c, x, 'cancelled');
        if (i === 3)
          expect((await c.delete(`/api/v1/issues/${blocked.issue_number}/relations/${x.id}-blocks-${blocked.id}`)).status).toBe(
            204,
          );
      }),
    );
    // Open and still relating: blocker 2 only.
    expect(await openBlockers(org.orgId, blocked)).toBe(1);
    expect((await byKey(admin, blocked.issue_number)).blocked).toBe(true);
  });

  it("let a blocker's status change while an issue it blocks is gone and its relation not yet taken off (the add is dropped)", async () => {
    const { org, admin, a, issue } = await setup();
    const blocker = await issue(a.backlog, 'Blocker');
    const gone = await issue(a.backlog, 'Gone without its cleanup');
    const kept = await issue(a.backlog, 'Still blocked');
    expect((await relate(admin, blocker.issue_number, 'blocks', gone.issue_number)).status).toBe(201);
    expect((await relate(admin, blocker.issue_number, 'blocks', kept.issue_number)).status).toBe(201);
    // As a cascade interrupted between an issue's removal and its relations' cleanup would leave it.
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issue(org.orgId, a.id, gone.id) }));
    await setStatus(admin, blocker, 'done');
    expect(await openBlockers(org.orgId, kept)).toBe(0);
    await setStatus(admin, blocker, 'todo');
    expect(await openBlockers(org.orgId, kept)).toBe(1);
    expect(await getItem(keys.issue(org.orgId, a.id, gone.id))).toBeUndefined();
  });

  it('are recorded in the activity of both issues, added and removed, with the actor', async () => {
    const { org, member, a, b, issue } = await setup();
    const one = await issue(a.backlog, 'Logged');
    const two = await issue(b.sprint, 'Also logged');
    const rel = (await relate(member, one.issue_number, 'duplicates', two.issue_number)).body;
    expect((await member.delete(`/api/v1/issues/${one.issue_number}/relations/${rel.id}`)).status).toBe(204);
    const changesOf = (path: string) =>
      activityOf<{ actor_id: number; changes: { field: string }[] }>(member, path, 2, (e) =>
        e.changes.some((c) => c.field === 'relations'),
      );
    const shown = (id: number, number: string, project: number) => ({ id, issue_number: number, project_id: project });
    const onOne = await changesOf(`${a.backlog}/issues/${one.id}`);
    expect(onOne.map((e) => e.changes)).toEqual([
      [{ field: 'relations', from: null, to: { id: rel.id, type: 'duplicates', issue: shown(two.id, two.issue_number, b.id) } }],
      [{ field: 'relations', from: { id: rel.id, type: 'duplicates', issue: shown(two.id, two.issue_number, b.id) }, to: null }],
    ]);
    expect(onOne.every((e) => e.actor_id === org.member.id)).toBe(true);
    const onTwo = await changesOf(`${b.sprint}/issues/${two.id}`);
    expect(onTwo.map((e) => e.changes[0])).toEqual([
      { field: 'relations', from: null, to: { id: rel.id, type: 'duplicated_by', issue: shown(one.id, one.issue_number, a.id) } },
      { field: 'relations', from: { id: rel.id, type: 'duplicated_by', issue: shown(one.id, one.issue_number, a.id) }, to: null },
    ]);
  }, 60_000);

  it("answer 404 for an unknown or malformed key, and for another organisation's issue", async () => {
    const { admin, a, issue } = await setup();
    const mine = await issue(a.backlog, 'Mine');
    const other = await orgWithClients(gateway);
    expect((await relations(other.admin, mine.issue_number)).status).toBe(404);
    expect((await relations(admin, 'NOPE-1')).status).toBe(404);
    expect((await relations(admin, 'not-a-key')).status).toBe(404);
    expect((await relate(other.admin, mine.issue_number, 'blocks', mine.issue_number)).status).toBe(422);
  });
});

/** Adds one side of a relation to an issue item directly (seeding). */
async function setRelation(orgId: number, issue: Issue, id: string, side: object, first: boolean): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.issue(orgId, issue.project_id, issue.id),
      UpdateExpression: first ? 'SET #relations = :map' : 'SET #relations.#id = :side',
      ExpressionAttributeNames: { '#relations': 'relations', ...(first ? {} : { '#id': id }) },
      ExpressionAttributeValues: first ? { ':map': { [id]: side } } : { ':side': side },
    }),
  );
}

async function openBlockers(orgId: number, issue: Issue): Promise<number> {
  return Number((await getItem(keys.issue(orgId, issue.project_id, issue.id)))?.open_blockers ?? 0);
}

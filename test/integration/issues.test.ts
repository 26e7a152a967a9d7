import { BatchWriteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { collections, keys, listKeys, parseIssueListKey } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { getSprintItem } from '../../lib/db/projects/sprints.ts';
import { NotFoundError, UnavailableError } from '../../lib/vocabulary/errors.ts';
import { createIssue, deleteIssue, getIssue, listIssues, updateIssue } from '../../lib/services/issues.ts';
import type { IssueLocation } from '../../lib/schemas/issues.ts';
import { POSITION_BASE, rankDelta, rankIndexOf } from '../../lib/model/positions.ts';
import { rankIndex } from '../../lib/db/issues/counters.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { createSprint } from '../../lib/services/sprints.ts';
import type { Issue, IssueStatus } from '../../lib/schemas/issues.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { issueItem } from '../support/seed.ts';

/** Domain and data layer of issues on DynamoDB Local: exact counters under concurrency, positions. */

async function newProject() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
  return { caller, project };
}

/** Every issue of a list, in order (several pages if need be). */
async function wholeList(caller: Principal, at: IssueLocation): Promise<Issue[]> {
  const items: Issue[] = [];
  let cursor: string | undefined;
  do {
    const { page, items: batch } = await listIssues(caller, at, { page: 1, perPage: 100, cursor });
    items.push(...batch);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** The stored sort keys of a list, in order (keys only). */
async function storedKeys(orgId: number, projectId: number, sprintId: number | null): Promise<number[]> {
  const collection =
    sprintId === null ? collections.backlogIssues(orgId, projectId) : collections.sprintIssues(orgId, projectId, sprintId);
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'LSI1Keys',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) => parseIssueListKey(String(item.LSK))?.position as number);
}

/** The rank counters a list's owner should hold for these stored keys. */
const recount = (stored: number[]) => rankIndexOf(rankDelta(stored.map((to) => ({ to }))));

/**
 * Stored counters equal what the lists hold; every list reads 1..n, one issue read alone has the
 * place the list shows, and the rank counters equal a recount of the stored keys.
 */
async function expectConsistent(caller: Principal, projectId: number, sprintIds: number[]) {
  const points = (i: Issue) => i.story_points ?? 0;
  for (const sprintId of [...sprintIds, null]) {
    const list = await wholeList(caller, { projectId, sprintId });
    expect(list.map((i) => i.position)).toEqual(list.map((_, k) => k + 1));
    expect(list.every((i) => i.sprint_id === sprintId)).toBe(true);
    for (const issue of list.filter((_, k) => k % 7 === 0 || k === list.length - 1)) {
      expect((await getIssue(caller, { projectId, sprintId }, issue.id)).position).toBe(issue.position);
    }
    const owner =
      sprintId === null ? await getProjectItem(caller.orgId, projectId) : await getSprintItem(caller.orgId, projectId, sprintId);
    expect(rankIndex(owner)).toEqual(recount(await storedKeys(caller.orgId, projectId, sprintId)));
    if (sprintId === null) {
      expect(Number((await getProjectItem(caller.orgId, projectId))?.backlog_count)).toBe(list.length);
      continue;
    }
    const s = await getSprintItem(caller.orgId, projectId, sprintId);
    expect([s?.issues_count, s?.total_story_points, s?.completed_story_points, s?.open_issues_count]).toEqual([
      list.length,
      list.reduce((a, i) => a + points(i), 0),
      list.filter((i) => i.status === 'done').reduce((a, i) => a + points(i), 0),
      list.filter((i) => i.status !== 'done' && i.status !== 'cancelled').length,
    ]);
  }
}

/** A small deterministic pseudo-random sequence (the test must replay the same way). */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 48271) % 2147483647;
    return s % n;
  };
}

/**
 * Packs a list's positions into consecutive integers, as a long run of moves into one place could,
 * moving the sprint's rank counters by what the packing moved.
 */
async function pack(caller: Principal, projectId: number, sprintId: number, issues: Issue[]) {
  const before = await storedKeys(caller.orgId, projectId, sprintId);
  const delta = rankDelta([...before.map((from) => ({ from })), ...issues.map((_, i) => ({ to: POSITION_BASE + 1 + i }))]);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sprint(caller.orgId, projectId, sprintId),
      UpdateExpression: `ADD ${Object.keys(delta)
        .map((name) => `${name} :${name}`)
        .join(', ')}`,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(delta).map(([name, by]) => [`:${name}`, by])),
    }),
  );
  await Promise.all(
    issues.map((issue, i) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.issue(caller.orgId, projectId, issue.id),
          UpdateExpression: 'SET #p = :p, LSK = :lsk',
          ExpressionAttributeNames: { '#p': 'position' },
          ExpressionAttributeValues: {
            ':p': POSITION_BASE + 1 + i,
            ':lsk': listKeys.sprintIssue(sprintId, POSITION_BASE + 1 + i, issue.id),
          },
        }),
      ),
    ),
  );
}

describe('issues', () => {
  it('keeps every counter exact through a storm of concurrent creates, updates, moves and deletes', async () => {
    const { caller, project } = await newProject();
    const sprints = [
      (await createSprint(caller, project.id, { name: 'A' })).id,
      (await createSprint(caller, project.id, { name: 'B' })).id,
    ];
    const lists: (number | null)[] = [...sprints, null];
    const statuses: IssueStatus[] = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'];
    const rnd = random(42);
    const ids: { id: number; at: number | null }[] = [];
    await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const at = lists[i % 3] as number | null;
        const issue = await createIssue(caller, { projectId: project.id, sprintId: at }, { title: `I${i}`, story_points: i % 5 });
        ids.push({ id: issue.id, at });
      }),
    );
    const operations = Array.from({ length: 60 }, (_, n) => {
      const target = ids[rnd(ids.length)] as { id: number; at: number | null };
      const kind = rnd(10);
      return async () => {
        // Where the issue is now (other operations may have moved it): read it where it lives.
        const where = (
          await Promise.all(
            lists.map((s) => getIssue(caller, { projectId: project.id, sprintId: s }, target.id).catch(() => null)),
          )
        )
          .map((issue, i) => (issue ? lists[i] : undefined))
          .find((s) => s !== undefined);
        if (where === undefined) return;
        const at = { projectId: project.id, sprintId: where };
        if (kind < 4)
          await updateIssue(caller, at, target.id, { status: statuses[rnd(5)], story_points: rnd(4) === 0 ? null : rnd(13) });
        else if (kind < 7)
          await updateIssue(caller, at, target.id, { sprint_id: lists[rnd(3)] as number | null, position: 1 + rnd(12) });
        else if (kind < 8) await updateIssue(caller, at, target.id, { position: 1 + rnd(12) });
        else if (kind < 9) await deleteIssue(caller, at, target.id);
        else
          await createIssue(
            caller,
            { projectId: project.id, sprintId: lists[rnd(3)] as number | null },
            { title: `N${n}`, story_points: 3 },
          );
      };
    });
    // As a client does, each operation tries again, a few times at most: on a 503 (busy: retry), and
    // on a 404 (the issue moved or went meanwhile): it then finds the issue where it lives now, or
    // finds it gone and stops.
    const retried = async (op: () => Promise<void>) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await op();
        } catch (err) {
          if (!(err instanceof UnavailableError || err instanceof NotFoundError) || attempt === 5) throw err;
          await new Promise((r) => setTimeout(r, 20 * attempt));
        }
      }
    };
    const results = await Promise.allSettled(operations.map((op) => retried(op)));
    // An operation may lose a race five times over (404 or 503 each time): it then changed nothing.
    for (const r of results) {
      if (r.status === 'rejected')
        expect((r.reason as Error).constructor.name, String(r.reason)).toMatch(/NotFoundError|UnavailableError/);
    }
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(40);
    await expectConsistent(caller, project.id, sprints);
  }, 120_000);

  it('applies every one of concurrent updates of one issue, with the counters of the last', async () => {
    const { caller, project } = await newProject();
    const sprintId = (await createSprint(caller, project.id, { name: 'A' })).id;
    const at = { projectId: project.id, sprintId };
    const issue = await createIssue(caller, at, { title: 'hot', story_points: 1 });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        updateIssue(caller, at, issue.id, { story_points: i + 2, status: i % 2 ? 'done' : 'todo' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(8);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(UnavailableError);
    await expectConsistent(caller, project.id, [sprintId]);
  });

  it('re-appends a packed run when no window of neighbours has room, keeping order and uniqueness', async () => {
    const { caller, project } = await newProject();
    const sprintId = (await createSprint(caller, project.id, { name: 'A' })).id;
    const at = { projectId: project.id, sprintId };
    for (let i = 0; i < 150; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, k) => createIssue(caller, at, { title: `I${i + k}` })));
    }
    let list = await wholeList(caller, at);
    await pack(caller, project.id, sprintId, list);
    list = await wholeList(caller, at);
    expect((await storedKeys(caller.orgId, project.id, sprintId)).at(-1)).toBe(POSITION_BASE + 150);
    const mover = list[149] as Issue;
    // Place 40: no integer is free within reach (and the window cannot reach the room below the
    // first issue), so the 110 issues after the gap are re-appended: more than one transaction
    // holds, so some on their own, the rest with the move.
    const { result, log } = await withDbCallLog(() => updateIssue(caller, at, mover.id, { position: 40 }));
    const expected = list.map((i) => i.id).filter((id) => id !== mover.id);
    expected.splice(39, 0, mover.id);
    const after = await wholeList(caller, at);
    expect(after.map((i) => i.id)).toEqual(expected);
    expect(result.position).toBe(40);
    expect(after[39]?.position).toBe(40);
    // 44 with the move, 66 on their own in transactions of 49 (each issue with its search record).
    expect(log.calls.filter((c) => c === 'TransactWriteItemsCommand')).toHaveLength(3);
    await expectConsistent(caller, project.id, [sprintId]);
    // And the list has room again: the next move into the same place is a plain midpoint.
    const next = await withDbCallLog(() => updateIssue(caller, at, (after[100] as Issue).id, { position: 41 }));
    // A place among the first 43: its window is read from the list's start, beside the issue.
    expect(next.log.calls).toEqual(['QueryCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(next.result.position).toBe(41);
  }, 120_000);

  it('renumbers a few neighbours in the move transaction when the gap is full', async () => {
    const { caller, project } = await newProject();
    const sprintId = (await createSprint(caller, project.id, { name: 'A' })).id;
    const at = { projectId: project.id, sprintId };
    for (let i = 0; i < 8; i++) await createIssue(caller, at, { title: `I${i}` });
    const list = await wholeList(caller, at);
    const second = (await storedKeys(caller.orgId, project.id, sprintId))[1] as number;
    // Close the gap between places 2 and 3 only (within one rank block: no counter moves).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issue(caller.orgId, project.id, (list[2] as Issue).id),
        UpdateExpression: 'SET #p = :p, LSK = :lsk',
        ExpressionAttributeNames: { '#p': 'position' },
        ExpressionAttributeValues: {
          ':p': second + 1,
          ':lsk': listKeys.sprintIssue(sprintId, second + 1, (list[2] as Issue).id),
        },
      }),
    );
    const { log, result } = await withDbCallLog(() => updateIssue(caller, at, (list[7] as Issue).id, { position: 3 }));
    expect(log.calls).toEqual(['QueryCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(result.position).toBe(3);
    const after = await wholeList(caller, at);
    expect(after.map((i) => i.id)).toEqual(
      [list[0], list[1], list[7], list[2], list[3], list[4], list[5], list[6]].map((i) => (i as Issue).id),
    );
    await expectConsistent(caller, project.id, [sprintId]);
  });

  it("reads a move's window beside the issue for a place among the first 43, after the list's rank index for a deeper one, and a move's allocation beside the issue", async () => {
    const { caller, project } = await newProject();
    const sprintId = (await createSprint(caller, project.id, { name: 'A' })).id;
    const at = { projectId: project.id, sprintId };
    const backlog = { projectId: project.id, sprintId: null };
    for (let i = 0; i < 60; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, k) => createIssue(caller, at, { title: `I${i + k}` })));
    }
    const list = await wholeList(caller, at);
    const moves: [Issue, number, string[], number][] = [
      [list[0]!, 50, ['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand'], 3],
      [list[55]!, 2, ['QueryCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand'], 2],
      [list[30]!, 43, ['QueryCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand'], 2],
      [list[31]!, 44, ['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand'], 3],
    ];
    const expected = list.map((i) => i.id);
    for (const [issue, place, calls, roundTrips] of moves) {
      const { log, result } = await withDbCallLog(() => updateIssue(caller, at, issue.id, { position: place }));
      expect([result.position, log.calls, log.roundTrips]).toEqual([place, calls, roundTrips]);
      expected.splice(expected.indexOf(issue.id), 1);
      expected.splice(place - 1, 0, issue.id);
      expect((await wholeList(caller, at)).map((i) => i.id)).toEqual(expected);
    }
    // To the end of the backlog: its place allocated beside the issue's read.
    const { log, result } = await withDbCallLog(() => updateIssue(caller, at, list[10]!.id, { sprint_id: null }));
    expect([result.position, log.calls, log.roundTrips]).toEqual([
      1,
      ['UpdateItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand'],
      2,
    ]);
    // Into the sprint at place 1: the window of the sprint, beside the issue.
    const back = await withDbCallLog(() => updateIssue(caller, backlog, list[10]!.id, { sprint_id: sprintId, position: 1 }));
    expect([back.result.position, back.log.roundTrips]).toEqual([1, 2]);
    expect((await wholeList(caller, at))[0]?.id).toBe(list[10]!.id);
    await expectConsistent(caller, project.id, [sprintId]);
  }, 60_000);

  it('updates and deletes issues written without a revision (as older writers stored them)', async () => {
    const { caller, project } = await newProject();
    const sprintId = (await createSprint(caller, project.id, { name: 'A' })).id;
    const at = { projectId: project.id, sprintId };
    const made = await createIssue(caller, at, { title: 'Seeded' });
    const legacy = issueItem(caller.orgId, project.id, sprintId, made.id + 1000, 1);
    const rankName = Object.keys(rankDelta([{ to: 1 }]))[0] as string;
    await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: [{ PutRequest: { Item: legacy } }] } }));
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.sprint(caller.orgId, project.id, sprintId),
        UpdateExpression: `ADD issues_count :one, open_issues_count :one, total_story_points :points, ${rankName} :one`,
        ExpressionAttributeValues: { ':one': 1, ':points': legacy.story_points },
      }),
    );
    const id = Number(legacy.id);
    expect((await updateIssue(caller, at, id, { title: 'Renamed', story_points: 2 })).title).toBe('Renamed');
    expect((await getIssue(caller, at, id)).story_points).toBe(2);
    await deleteIssue(caller, at, id);
    await expect(getIssue(caller, at, id)).rejects.toThrow('Issue not found');
    await expectConsistent(caller, project.id, [sprintId]);
  });
});

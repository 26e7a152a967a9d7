import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/cascade.ts';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  MAX_ATTEMPTS,
  cascadeBatch,
  failureMessage,
  listPendingCascades,
  resumeCascade,
  type PendingCascade,
} from '../../lib/jobs/cascade.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { lambdaContext } from '../../tools/local/gateway.ts';
import { collections, keys, orgPk, pendingCascadesPk, projectPk, skPrefixes, type Key } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { createProject } from '../../lib/services/projects.ts';
import { idOf } from '../../lib/model/cascades.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { deleteProjectForGood, itemsIn, removeQuietly, waitUntilEmpty } from '../support/cascade.ts';
import { commentItem, issueItem, seedProject, sprintItem } from '../support/seed.ts';
import { nextSequence, removeRecord } from '../support/stream-records.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * The cascade consumer, two ways: its handler invoked directly with Lambda-shaped stream records
 * (idempotency, cost, partial failure), and end to end through the stream poller the test run
 * starts (a domain delete, then the table empties itself).
 */

async function adminOfNewOrg(): Promise<{ caller: Principal; orgId: number }> {
  const org = await newOrganisation();
  return { orgId: org.orgId, caller: { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' } };
}

const projectImage = (orgId: number, projectId: number) => ({
  ...keys.project(orgId, projectId),
  type: 'project',
  org_id: orgId,
  id: projectId,
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes the data layer's calls matching `when` fail as a throttled DynamoDB would (a fault DynamoDB Local never gives). */
function failQueries(when: (values: Record<string, unknown> | undefined, input: Record<string, unknown>) => boolean) {
  const send = db.send.bind(db);
  return vi.spyOn(db, 'send').mockImplementation(((command: { input: Record<string, unknown> }) => {
    const values = command.input.ExpressionAttributeValues as Record<string, unknown> | undefined;
    if (when(values, command.input)) {
      return Promise.reject(Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    }
    return send(command as never);
  }) as typeof db.send);
}

/** The stream record of a pending cascade's write, as Lambda receives it. */
function pendingRecord(p: PendingCascade): DynamoDBRecord {
  const id = idOf(p.parent);
  const key = keys.pendingCascade(p.parent.kind, p.parent.orgId, p.parent.projectId, id);
  const n = nextSequence();
  return {
    eventID: `e${n}`,
    eventName: 'MODIFY',
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    awsRegion: 'local',
    dynamodb: {
      Keys: { PK: { S: key.PK }, SK: { S: key.SK } },
      NewImage: {
        PK: { S: key.PK },
        SK: { S: key.SK },
        type: { S: 'cascade' },
        status: { S: p.status },
        kind: { S: p.parent.kind },
        org_id: { N: String(p.parent.orgId) },
        project_id: { N: String(p.parent.projectId) },
        parent_id: { N: String(id) },
        attempts: { N: String(p.attempts) },
      },
      SequenceNumber: String(n).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** Waits until an item is gone (the consumer, fed by the stream poller, finishes in the background). */
async function waitUntilGone(key: Key) {
  await eventually(
    `${key.PK} ${key.SK} to be removed`,
    async () => (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item,
    (item) => item === undefined,
    bounds.cascade(),
  );
}

/** The comments' pointers (`keys.commentPointer`), in the organisation's partition. */
const commentPointers = (orgId: number) => ({ pk: orgPk(orgId), skPrefix: 'COMMENT#' });

describe('cascade consumer (handler invoked directly)', () => {
  it('removes a project partition, and a replay of the same record is harmless', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Doomed', prefix: randomPrefix() });
    await seedProject(orgId, project.id, caller.accountId, { sprints: 2, issuesPerSprint: 3, backlog: 2, commentsPerIssue: 2 });
    await removeQuietly(keys.project(orgId, project.id));
    const record = removeRecord(projectImage(orgId, project.id));

    const first = await handler({ Records: [record] }, lambdaContext('cascade'));
    expect(first.batchItemFailures).toEqual([]);
    expect(await itemsIn({ pk: projectPk(orgId, project.id) })).toEqual([]);
    expect(await itemsIn(commentPointers(orgId))).toEqual([]);
    const again = await handler({ Records: [record] }, lambdaContext('cascade'));
    expect(again.batchItemFailures).toEqual([]);
  });

  it("removes only a deleted sprint's issues and their comments", async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Keep', prefix: randomPrefix() });
    const seeded = await seedProject(orgId, project.id, caller.accountId, {
      sprints: 2,
      issuesPerSprint: 3,
      backlog: 1,
      commentsPerIssue: 2,
    });
    const [doomed, kept] = seeded.sprintIds as [number, number];
    const pk = projectPk(orgId, project.id);
    await removeQuietly(keys.sprint(orgId, project.id, doomed));

    const out = await handler({ Records: [removeRecord(sprintItem(orgId, project.id, doomed))] }, lambdaContext('cascade'));

    expect(out.batchItemFailures).toEqual([]);
    expect(await itemsIn({ pk, lskPrefix: collections.sprintIssues(orgId, project.id, doomed).prefix })).toEqual([]);
    for (const issueId of seeded.issues.get(doomed) ?? []) {
      expect(await itemsIn({ pk, skPrefix: skPrefixes.issueComments(issueId) })).toEqual([]);
    }
    for (const issueId of [...(seeded.issues.get(kept) ?? []), ...(seeded.issues.get(null) ?? [])]) {
      expect(await itemsIn({ pk, skPrefix: skPrefixes.issueComments(issueId) })).toHaveLength(2);
    }
    // the sprint item itself is the user's delete (here the test's), not the cascade's
    expect((await itemsIn({ pk, skPrefix: 'SPRINT#' })).map((i) => i.id)).toEqual([kept]);
    expect(await itemsIn({ pk, skPrefix: 'ISSUE#' }, 100)).toHaveLength(4 + 4 * 2);
    expect(await itemsIn(commentPointers(orgId), 100)).toHaveLength(4 * 2);
  });

  it("removes only a deleted issue's comments", async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Keep', prefix: randomPrefix() });
    const seeded = await seedProject(orgId, project.id, caller.accountId, {
      sprints: 1,
      issuesPerSprint: 2,
      commentsPerIssue: 3,
    });
    const sprintId = seeded.sprintIds[0] as number;
    const [doomed, kept] = seeded.issues.get(sprintId) as [number, number];
    const pk = projectPk(orgId, project.id);

    // Deleted for good (not in the trash, where its comments would wait for a restore).
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issue(orgId, project.id, doomed) }));
    await handler({ Records: [removeRecord(issueItem(orgId, project.id, sprintId, doomed, 1))] }, lambdaContext('cascade'));

    expect(await itemsIn({ pk, skPrefix: skPrefixes.issueComments(doomed) })).toEqual([]);
    expect(await itemsIn({ pk, skPrefix: skPrefixes.issueComments(kept) })).toHaveLength(3);
    // The kept issue and its comments (the doomed issue went before its record).
    expect(await itemsIn({ pk, skPrefix: `ISSUE#` }, 100)).toHaveLength(1 + 3);
    expect(await itemsIn(commentPointers(orgId), 100)).toHaveLength(3);
  });

  it('ignores writes and comment removals without a single DynamoDB call', async () => {
    const { orgId } = await adminOfNewOrg();
    const comment = removeRecord(commentItem(orgId, 1, 1, 1, 1, 1));
    const insert = { ...removeRecord(issueItem(orgId, 1, 1, 2, 1)), eventName: 'INSERT' as const };
    const { result, log } = await withDbCallLog(() => cascadeBatch([comment, insert]));
    expect(result).toMatchObject({ parents: 0, deleted: 0 });
    expect(log.calls).toEqual([]);
  });

  it('spends one read on a thousand issue removals emitted by a project cascade', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Gone', prefix: randomPrefix() });
    await removeQuietly(keys.project(orgId, project.id));
    const records = Array.from({ length: 1000 }, (_, i) => removeRecord(issueItem(orgId, project.id, 1, i + 1, i)));

    const { result, log } = await withDbCallLog(() => cascadeBatch(records));

    expect(result).toMatchObject({ parents: 1000, skipped: 1000, deleted: 0, firstFailure: undefined });
    // The project and its trash item, in one TransactGetItems: gone for good, its own record empties it.
    expect(log.calls).toEqual(['TransactGetItemsCommand']);
  });

  it('runs the project cascade once for a batch that also holds its children', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Gone', prefix: randomPrefix() });
    await seedProject(orgId, project.id, caller.accountId, { sprints: 1, issuesPerSprint: 2, commentsPerIssue: 1 });
    await removeQuietly(keys.project(orgId, project.id));
    const children = Array.from({ length: 50 }, (_, i) => removeRecord(issueItem(orgId, project.id, 1, i + 1, i)));
    const records = [...children, removeRecord(projectImage(orgId, project.id))];

    const { result, log } = await withDbCallLog(() => cascadeBatch(records));

    // The sprint, its two issues and their comments, and the five states of its workflow.
    expect(result).toMatchObject({ parents: 51, skipped: 50, deleted: 1 + 2 + 2 + 5 });
    expect(log.calls.filter((c) => c === 'QueryCommand')).toHaveLength(1);
    expect(await itemsIn({ pk: projectPk(orgId, project.id) })).toEqual([]);
  });

  it('writes a failing cascade down as pending instead of failing its record, and the consumer then finishes it', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const ok = await createProject(caller, { name: 'A', prefix: randomPrefix() });
    const failing = await createProject(caller, { name: 'B', prefix: randomPrefix() });
    await seedProject(orgId, ok.id, caller.accountId, { sprints: 1, issuesPerSprint: 2, commentsPerIssue: 1 });
    await seedProject(orgId, failing.id, caller.accountId, { sprints: 1, issuesPerSprint: 2, commentsPerIssue: 1 });
    await removeQuietly(keys.project(orgId, ok.id));
    await removeQuietly(keys.project(orgId, failing.id));
    const records = [removeRecord(projectImage(orgId, ok.id)), removeRecord(projectImage(orgId, failing.id))];
    const failingPk = projectPk(orgId, failing.id);
    const spy = failQueries((values) => values?.[':pk'] === failingPk);

    const out = await cascadeBatch(records);
    spy.mockRestore();

    expect(out.firstFailure).toBeUndefined();
    expect(out).toMatchObject({ continued: 1, givenUp: 0 });
    expect(out.errors).toHaveLength(1);
    expect(await itemsIn({ pk: projectPk(orgId, ok.id) })).toEqual([]);
    // Written down with its failure, the pending cascade brings the consumer (the stream poller) back.
    await waitUntilEmpty({ pk: failingPk });
    await waitUntilGone(keys.pendingCascade('project', orgId, failing.id, failing.id));
  });

  it('reports a record failed only when its outcome cannot be written down, and a retry from it finishes the work', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'B', prefix: randomPrefix() });
    await seedProject(orgId, project.id, caller.accountId, { sprints: 1, issuesPerSprint: 2, commentsPerIssue: 1 });
    await removeQuietly(keys.project(orgId, project.id));
    const record = removeRecord(projectImage(orgId, project.id));
    const pk = projectPk(orgId, project.id);
    const spy = failQueries(
      (values, input) => values?.[':pk'] === pk || (input.Item as { PK?: string } | undefined)?.PK === pendingCascadesPk,
    );

    const out = await handler({ Records: [record] }, lambdaContext('cascade'));
    spy.mockRestore();

    expect(out.batchItemFailures).toEqual([{ itemIdentifier: record.dynamodb?.SequenceNumber }]);
    const retry = await handler({ Records: [record] }, lambdaContext('cascade'));
    expect(retry.batchItemFailures).toEqual([]);
    expect(await itemsIn({ pk })).toEqual([]);
  });

  it(
    'stops at its deadline after one page, writes down where it stopped, and the stream brings the consumer back to finish',
    { timeout: 60_000 },
    async () => {
      const { orgId, caller } = await adminOfNewOrg();
      const project = await createProject(caller, { name: 'Big', prefix: randomPrefix() });
      // More than one page of the cascade's Query (250 keys, lib/jobs/cascade.ts): one is done, the rest left for later.
      const seeded = await seedProject(orgId, project.id, caller.accountId, {
        sprints: 1,
        issuesPerSprint: 300,
        commentsPerIssue: 0,
      });
      await removeQuietly(keys.project(orgId, project.id));
      const record = removeRecord(projectImage(orgId, project.id));

      const cut = await cascadeBatch([record], { deadline: Date.now() - 1 });

      expect(cut.firstFailure).toBeUndefined();
      expect(cut.errors).toEqual([]);
      expect(cut).toMatchObject({ continued: 1, givenUp: 0 });
      await waitUntilEmpty({ pk: projectPk(orgId, project.id) }, seeded.items);
      await waitUntilGone(keys.pendingCascade('project', orgId, project.id, project.id));
    },
  );

  it('gives a cascade up after its attempts: marked failed, announced with what resumes it, and cascade:resume finishes it', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
    const { sprintIds } = await seedProject(orgId, project.id, caller.accountId, {
      sprints: 1,
      issuesPerSprint: 3,
      commentsPerIssue: 2,
    });
    const sprintId = sprintIds[0] as number;
    await removeQuietly(keys.sprint(orgId, project.id, sprintId));
    const parent = { kind: 'sprint' as const, orgId, projectId: project.id, sprintId };
    const issues = collections.sprintIssues(orgId, project.id, sprintId);
    const announced: PendingCascade[] = [];
    const spy = failQueries((values) => values?.[':prefix'] === issues.prefix);

    const out = await cascadeBatch([pendingRecord({ parent, attempts: MAX_ATTEMPTS - 1, status: 'pending' })], {
      notifyFailure: async (p) => void announced.push(p),
    });
    spy.mockRestore();

    expect(out).toMatchObject({ givenUp: 1, continued: 0 });
    expect(out.firstFailure).toBeUndefined();
    const stored = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.pendingCascade('sprint', orgId, project.id, sprintId),
        ConsistentRead: true,
      }),
    );
    expect(stored.Item).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, error: expect.stringContaining('Throughput') });
    expect(announced).toHaveLength(1);
    expect(failureMessage(announced[0]!)).toMatchObject({
      cascade: parent,
      attempts: MAX_ATTEMPTS,
      resume: `npm run admin -- cascade:resume --org ${orgId} --project ${project.id} --sprint ${sprintId}`,
    });
    expect(
      (await listPendingCascades()).some((p) => p.status === 'failed' && JSON.stringify(p.parent) === JSON.stringify(parent)),
    ).toBe(true);

    expect(await resumeCascade(parent)).toBe(3 + 6);
    expect(await itemsIn({ pk: issues.pk, lskPrefix: issues.prefix })).toEqual([]);
    await waitUntilGone(keys.pendingCascade('sprint', orgId, project.id, sprintId));
  });
});

describe('cascade through the stream (as in AWS)', () => {
  it('empties the partition of a deleted project', async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Doomed', prefix: randomPrefix() });
    const seeded = await seedProject(orgId, project.id, caller.accountId, {
      sprints: 2,
      issuesPerSprint: 5,
      backlog: 3,
      commentsPerIssue: 2,
    });

    await deleteProjectForGood(caller, project.id, seeded.items);

    await waitUntilEmpty({ pk: projectPk(orgId, project.id) }, seeded.items);
  });

  it('empties the partition of a project of 10 sprints, 600 issues and 600 comments', { timeout: 180_000 }, async () => {
    const { orgId, caller } = await adminOfNewOrg();
    const project = await createProject(caller, { name: 'Large', prefix: randomPrefix() });
    // Seeded with BatchWrite of items shaped exactly as the data layer writes them (ids from the
    // organisation's sequences, counters set to match): 10 sprints x 50 issues + 100 backlog
    // issues, one comment each: pages of the cascade's 250 keys from every kind of item.
    const seeded = await seedProject(orgId, project.id, caller.accountId, {
      sprints: 10,
      issuesPerSprint: 50,
      backlog: 100,
      commentsPerIssue: 1,
    });
    expect(seeded.items).toBe(10 + 600 + 600);

    const started = Date.now();
    await deleteProjectForGood(caller, project.id, seeded.items);
    const waited = await waitUntilEmpty({ pk: projectPk(orgId, project.id) }, seeded.items);

    console.log(`cascade of ${seeded.items} items: partition empty ${waited} ms after the delete (${Date.now() - started} ms)`);
  });

  it(
    'finishes the cascade of a project of 2,400 items with a consumer deadline of a few milliseconds, leaving nothing',
    { timeout: 180_000 },
    async () => {
      const { orgId, caller } = await adminOfNewOrg();
      const project = await createProject(caller, { name: 'Huge', prefix: randomPrefix() });
      const seeded = await seedProject(orgId, project.id, caller.accountId, {
        sprints: 2,
        issuesPerSprint: 600,
        commentsPerIssue: 1,
      });
      expect(seeded.items).toBe(2 + 1200 + 1200);
      const pending = keys.pendingCascade('project', orgId, project.id, project.id);
      let continued = false;
      const watching = (async () => {
        // The test run's consumer has a deadline of 10 ms (test/support/global-setup.ts): the
        // cascade is written down and continued again and again.
        while (!continued) {
          continued =
            (await db.send(new GetCommand({ TableName: tableName(), Key: pending, ConsistentRead: true }))).Item !== undefined;
          await new Promise((r) => setTimeout(r, 20));
        }
      })();

      await deleteProjectForGood(caller, project.id, seeded.items);
      const waited = await waitUntilEmpty({ pk: projectPk(orgId, project.id) }, seeded.items);
      await waitUntilGone(pending);

      expect(continued).toBe(true);
      continued = true;
      await watching;
      console.log(`cascade of ${seeded.items} items with a 10 ms deadline: partition empty ${waited} ms after the delete`);
    },
  );
});

describe('the indexes outside a deleted project', () => {
  it("takes out its issues' number pointers and assignee entries in batches, leaving a pointer another project has reused", async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Gone', prefix: randomPrefix() });
    const { createIssue } = await import('../../lib/services/issues.ts');
    const made = [];
    // More than one batch of index deletes (30 issues each), half of them assigned.
    for (let i = 0; i < 40; i++) {
      made.push(
        await createIssue(
          caller,
          { projectId: project.id, sprintId: null },
          { title: `t${i}`, assignee_id: i % 2 ? org.member.id : null },
        ),
      );
    }
    const reused = made[3]!;
    // As if a new project had taken the prefix and written this number already.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issueKey(org.orgId, reused.issue_number),
        UpdateExpression: 'SET project_id = :other',
        ExpressionAttributeValues: { ':other': project.id + 1_000_000 },
      }),
    );
    await deleteProjectForGood(caller, project.id);
    await waitUntilEmpty({ pk: projectPk(org.orgId, project.id) });
    const pointers = await itemsIn({ pk: orgPk(org.orgId), skPrefix: 'ISSUEKEY#' }, 100);
    expect(pointers.map((p) => p.SK)).toEqual([`ISSUEKEY#${reused.issue_number}`]);
    expect(await itemsIn({ pk: `${orgPk(org.orgId)}#A#${String(org.member.id).padStart(10, '0')}` })).toEqual([]);
    const account = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.account(org.orgId, org.member.id), ConsistentRead: true }),
    );
    expect(account.Item?.assigned_count).toBe(0);
  }, 60_000);
});

import type { DynamoDBRecord } from 'aws-lambda';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  afterFailure,
  cascadeParentOf,
  cascadeWorkOf,
  commentFilesOf,
  idOf,
  noPartitionKeys,
  notePartitionItem,
  orphansIn,
  pendingCascadeFromItem,
  pendingCascadeRecord,
  trashedAttachmentOf,
  type CascadeParent,
  type PartitionKeys,
  type PendingCascade,
} from './cascade-work.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import { alsoIf } from '../core/item.ts';
import { issueWriteItems } from '../issues/issue-write.ts';
import { asActor } from '../../context/actor.ts';
import { childrenOf } from '../issues/sub-issues.ts';
import type { IssueItem } from '../issues/issues.ts';
import { unlinkRemovedIssues } from '../issues/relations.ts';
import { queryPages, scanPages } from '../core/query.ts';
import { forEachLimited } from '../../model/limited.ts';
import { deleteObjects } from '../../aws/objects.ts';
import {
  releaseExpiredAttachment,
  releaseTrashedAttachment,
  settleCommentAttachments,
  settleIssueCommentAttachments,
} from '../attachments/attachments.ts';
import { db, tableName } from '../core/client.ts';
import { collections, keys, parseProjectPk, pendingCascadesPk, projectPk, skPrefixes } from '../core/keys.ts';
import { getItem, itemExists, Refused, revisionCondition, transact } from '../core/transactions.ts';
import { labelIsPurged, removeLabelFromIssues } from '../issues/labels.ts';
import { moveIssuesOffState } from './state-cascade.ts';
import { whereIssueIs } from './issue-trash.ts';
import { containerCascade, keepDeletedImage } from './container-trash.ts';
import { forgetPurgedRepositories } from './repository-purge.ts';
import { goneForGood, trashedKey } from '../core/trash.ts';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';

import {
  CascadeInterrupted,
  checkDeadline,
  deleteKeys,
  forEachPage,
  issueIdOf,
  PARALLELISM,
  removedIssues,
  sprintIssuesQuery,
  unindexIssues,
  type CascadeOptions,
} from './cascade-steps.ts';

export { CascadeInterrupted, type CascadeOptions } from './cascade-steps.ts';
export { failureMessage, MAX_ATTEMPTS, pendingCascadeFromItem, pendingCascadeOf } from './cascade-work.ts';
export type { CascadeParent, PendingCascade } from './cascade-work.ts';

/**
 * Puts a given-up cascade's `message` (`failureMessage`) on the failure queue at `queueUrl`
 * (infra/constructs/cascade-consumer.ts). The SQS client loads only then.
 */
export async function sendFailureMessage(queueUrl: string, message: object): Promise<void> {
  const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
  await new SQSClient({}).send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
}

/**
 * The cascade of deletes, fed by the table's stream (REMOVE records). A parent's delete is one
 * transaction that answers at once; everything under it is unreachable from then on (reads check
 * ancestors) and is removed here:
 *
 * - a project: every item of its partition (sprints, issues, comments, GitHub links), one Query
 *   over the item collection at a time, never a Scan; once it is purged, the GitHub repository it
 *   connected (lib/db/jobs/repository-purge.ts);
 * - a sprint: its issues (LSI1 `S#<sprint>#`) and their comments;
 * - an issue: its comments, activity, attachments and GitHub links (SK `ISSUE#<issue>#`), and
 *   its children's parent, once it is purged: its trash item's REMOVE (a purge, or its expiry by
 *   TTL), not its delete into the trash, which they outlive (docs/trash.md);
 * - a label: not a parent but a value: its id is taken off the issues of its project that carry it
 *   (lib/db/issues/labels.ts, `removeLabelFromIssues`) once it is purged: its trash item's REMOVE (a purge,
 *   or its expiry by TTL), not its delete into the trash, which its issues outlive.
 * - a state: not a parent but a value: the state its issues went to is written on each of them
 *   (lib/db/jobs/state-cascade.ts, `moveIssuesOffState`).
 * - with a project or a sprint, the relations of its issues to issues outside it (their sides, and
 *   the counts of open blockers they moved; lib/db/issues/relations.ts). An issue deleted on its own takes
 *   them off in its delete's transaction (the `open-blockers` derivation).
 *
 * Every step is a delete of what a Query just found, so running a record twice, or after the
 * project cascade already emptied the partition, is harmless. Memory is bounded by one page of keys.
 *
 * A cascade never gives up silently: one that runs out of time, or fails, is written down as a
 * pending cascade (`keys.pendingCascade`: the parent and where it stopped) instead of failing its
 * stream record. Writing it puts a record on the table's stream, which brings the consumer back to
 * continue from there; each further stop updates it (and brings the consumer back again); the
 * finished cascade deletes it. After MAX_ATTEMPTS failures in a row it is marked `failed`, left
 * where `cascade:resume` (tools/cli/admin.ts) finds it, and announced on the failure queue.
 */

/**
 * Clears the parent of the children of a deleted issue (`number`: its number, under which its
 * children index lives), each in one transaction with what the derivations keep of it (the
 * parent's summary aside: it is gone), its `updated_at` and its revision: the change feed records
 * it in the child's activity. Conditioned on the child's parent being that issue still, so a
 * cascade run twice changes nothing twice. At most 100 children (more, from an issue of the same
 * number deleted with an earlier project, are only those records: each names its parent).
 */
export async function releaseChildren(orgId: number, projectId: number, issueId: number, number: string): Promise<number> {
  const [records, marker] = await Promise.all([
    childrenOf(orgId, { projectId, issueId, number }),
    getItem(keys.deletion(keys.issue(orgId, projectId, issueId)), 'updated_by'),
  ]);
  // Made for whoever deleted the parent (its delete's marker, lib/db/core/deletions.ts): the change
  // feed reports each child's parent_id cleared as theirs, in the child's activity.
  const actor = typeof marker?.updated_by === 'number' ? marker.updated_by : undefined;
  const asDeleter = <T>(fn: () => Promise<T>) => (actor === undefined ? fn() : asActor(actor, fn));
  let released = 0;
  await forEachLimited(records, PARALLELISM, (record) => asDeleter(() => releaseChild(record)));
  return released;

  async function releaseChild(record: { issueId: number }): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const child = await getItem<IssueItem>(keys.issue(orgId, projectId, record.issueId));
      if (!child || child.parent_id !== issueId) {
        // Gone, or given another parent: only a record left behind (if any) goes.
        await transact([{ item: { Delete: { TableName: tableName(), Key: keys.subIssue(orgId, number, record.issueId) } } }]);
        return;
      }
      const now = new Date().toISOString();
      const before = issueStateOf(orgId, child as never);
      try {
        await transact(
          issueWriteItems({
            orgId,
            projectId,
            issues: [
              {
                item: {
                  Update: {
                    TableName: tableName(),
                    Key: keys.issue(orgId, projectId, child.id),
                    ...alsoIf(
                      issueItem.update({
                        set: { parentId: null, parentNumber: null, updatedAt: now },
                        add: { rev: 1 },
                        if: { equals: { parentId: issueId } },
                      }),
                      {
                        ConditionExpression: revisionCondition(child.rev),
                        ExpressionAttributeValues: { ':rev': child.rev ?? 0 },
                      },
                    ),
                  },
                },
                reason: 'stale',
              },
            ],
            changes: [{ before, after: { ...before, parentId: null, parentNumber: null, updatedAt: now } }],
            goneIssues: [issueId],
          }),
        );
        released++;
        return;
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
      }
    }
    throw new Error(`child ${record.issueId} of issue ${issueId} kept changing: its parent is cleared on the next run`);
  }
}

/** Deletes every item of a deleted project's partition. Returns the number of items deleted. */
export async function deleteProjectContents(orgId: number, projectId: number, options: CascadeOptions = {}): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk },
      ProjectionExpression:
        'PK, SK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points, #size, uploader_id, pending_reserved',
      ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
    },
    options,
    async (pageKeys, items) => {
      await unindexIssues(orgId, projectId, items);
      // Relations to issues of other projects: their sides go (this project's go with it).
      await unlinkRemovedIssues(orgId, removedIssues(projectId, items), projectId);
      await deleteKeys(pageKeys, items);
    },
  );
}

/** Deletes the comments of a deleted issue. Returns the number deleted. */
export async function deleteIssueComments(
  orgId: number,
  projectId: number,
  issueId: number,
  options: CascadeOptions = {},
): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      // Comments and activity alike (lib/db/core/keys.ts: both are stored under the issue's SK).
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.underIssue(issueId) },
      // Attachments' sizes too: their bytes come off the organisation's count (a pending one's reservation too).
      ProjectionExpression: 'PK, SK, #size, #status, uploader_id, pending_reserved',
      ExpressionAttributeNames: { '#size': 'size', '#status': 'status' },
    },
    options,
    deleteKeys,
  );
}

/**
 * Deletes the issues of a deleted sprint with their comments (comments first, so that no comment
 * outlives its issue if this is interrupted). Returns the number of items deleted.
 */
export async function deleteSprintIssues(
  orgId: number,
  projectId: number,
  sprintId: number,
  options: CascadeOptions = {},
): Promise<number> {
  let comments = 0;
  const issueCount = await forEachPage(sprintIssuesQuery(orgId, projectId, sprintId), options, async (issueKeys, items) => {
    await unindexIssues(orgId, projectId, items, 'outlive');
    await unlinkRemovedIssues(orgId, removedIssues(projectId, items));
    await forEachLimited(issueKeys, PARALLELISM, async (key) => {
      // Awaited first: `comments += await ...` would add to the value read before the wait.
      const deleted = await deleteIssueComments(orgId, projectId, issueIdOf(key), { deadline: options.deadline });
      comments += deleted;
    });
    await deleteKeys(issueKeys);
  });
  return issueCount + comments;
}

/**
 * Takes a purged label off the issues that carry it, one page of the project's issues at a time;
 * past the deadline it stops between pages with where it stopped. Returns the issues updated.
 * Nothing while the label is in the trash (its delete's record) or back (its restore's removal of
 * the trash item): only its purge or expiry takes it off.
 */
export async function removeDeletedLabel(
  orgId: number,
  projectId: number,
  labelId: number,
  options: CascadeOptions = {},
): Promise<number> {
  if (!(await labelIsPurged(orgId, projectId, labelId))) return 0;
  return removeLabelFromIssues(orgId, projectId, labelId, options.after, (next) => {
    if (next) checkDeadline(options, next);
  });
}

/** Runs the cascade of one parent. Returns the number of items deleted (for a label: the issues it was taken off). */
export async function cascade(parent: CascadeParent, options: CascadeOptions = {}): Promise<number> {
  switch (parent.kind) {
    // In the trash, its issues are taken out and put back (lib/db/jobs/container-trash.ts); purged, emptied.
    case 'project':
      return containerCascade(parent, options, (o) => deleteProjectContents(parent.orgId, parent.projectId, o));
    case 'sprint':
      return containerCascade(parent, options, (o) => deleteSprintIssues(parent.orgId, parent.projectId, parent.sprintId, o));
    case 'issue': {
      // Nothing while it is in the trash (its delete's record) or back (its restore's removal of
      // the trash item): only its purge or expiry, or a delete with its sprint, runs it. Back, the
      // attachments of its comments follow where each comment is now: a comment's restore or
      // delete meanwhile could not move their places in its count while it was away.
      const where = await whereIssueIs(parent.orgId, parent.projectId, parent.issueId);
      if (where === 'there') await settleIssueCommentAttachments(parent.orgId, parent.projectId, parent.issueId);
      if (where !== 'gone') return 0;
      // Its children first: a cascade interrupted after them finds none the next time (bounded: 100).
      const released =
        parent.number === undefined ? 0 : await releaseChildren(parent.orgId, parent.projectId, parent.issueId, parent.number);
      return released + (await deleteIssueComments(parent.orgId, parent.projectId, parent.issueId, options));
    }
    case 'label':
      return removeDeletedLabel(parent.orgId, parent.projectId, parent.labelId, options);
    case 'state':
      return moveIssuesOffState(parent.orgId, parent.projectId, parent.stateId, options.after, (next) => {
        if (next) checkDeadline(options, next);
      });
  }
}

export interface CascadeBatchResult {
  /** Sequence number of the first record (in batch order) whose cascade failed: retry from there. */
  firstFailure?: string | undefined;
  /** Items deleted by this batch. */
  deleted: number;
  /** Parent records in the batch, and how many of them needed no work of their own. */
  parents: number;
  skipped: number;
  /** Cascades written down to continue later (out of time, or failed and to be retried). */
  continued: number;
  /** Cascades given up after MAX_ATTEMPTS failures (marked failed, sent to the failure queue). */
  givenUp: number;
  /** Unexpected errors met (a deadline interruption is not one), for the log. */
  errors: unknown[];
}

/** Writes (or rewrites) a pending cascade; every write is a stream record that brings the consumer back. */
export async function savePendingCascade(pending: PendingCascade): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: pendingCascadeRecord(pending) }));
}

/** Removes a finished cascade from the pending list. */
export async function finishPendingCascade(parent: CascadeParent): Promise<void> {
  await db.send(
    new DeleteCommand({
      TableName: tableName(),
      Key: keys.pendingCascade(parent.kind, parent.orgId, parent.projectId, idOf(parent)),
    }),
  );
}

/** Every pending cascade (one Query of their partition; operators: `cascade:resume`, `cascade:sweep`). */
export async function listPendingCascades(): Promise<PendingCascade[]> {
  const found: PendingCascade[] = [];
  await queryPages(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pendingCascadesPk } },
    {},
    (items) => {
      for (const item of items) {
        const pending = pendingCascadeFromItem(item);
        if (pending) found.push(pending);
      }
    },
  );
  return found;
}

/** Where a cascade given up is announced (the consumer's failure queue); a log line when unset (locally). */
export type FailureNotifier = (pending: PendingCascade) => Promise<void>;

export interface BatchOptions extends CascadeOptions {
  notifyFailure?: FailureNotifier;
}

/** The object keys of the attachments a batch's REMOVE records show gone, with each record's place in the batch. */
function removedAttachmentFiles(records: DynamoDBRecord[]): { index: number; objectKey: string }[] {
  return records.flatMap((record, index) => {
    const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
    const objectKey = old?.type?.S === 'attachment' ? old.object_key?.S : undefined;
    return objectKey ? [{ index, objectKey }] : [];
  });
}

/** Whether DynamoDB's TTL removed the record's item (not a request of the service). */
const removedByTtl = (record: DynamoDBRecord): boolean => {
  const who = record.userIdentity as { type?: string; principalId?: string } | undefined;
  return who?.type === 'Service' && who.principalId === 'dynamodb.amazonaws.com';
};

const describeError = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * Runs one cascade from where it stood, and writes down what is left: nothing (done: the pending
 * entry, if any, goes), where it stopped (out of time), or one more failure (given up after
 * MAX_ATTEMPTS). Throws only when that record itself cannot be written.
 */
async function runAndRecord(
  pending: PendingCascade,
  wasPending: boolean,
  options: BatchOptions,
  result: CascadeBatchResult,
): Promise<void> {
  try {
    const deleted = await cascade(pending.parent, { deadline: options.deadline, after: pending.after });
    result.deleted += deleted;
    if (wasPending) await finishPendingCascade(pending.parent);
    return;
  } catch (err) {
    if (err instanceof CascadeInterrupted) {
      await savePendingCascade({ ...pending, after: err.after, status: 'pending' });
      result.continued++;
      return;
    }
    result.errors.push(err);
    const next = afterFailure(pending, describeError(err));
    await savePendingCascade(next);
    if (next.status === 'pending') {
      result.continued++;
      return;
    }
    result.givenUp++;
    await options.notifyFailure?.(next);
  }
}

/**
 * Processes one batch of stream records: REMOVEs of parents, and writes of pending cascades to
 * continue. Parent records are grouped by project partition, which keeps the cost of a big delete
 * flat: the project cascade itself emits one REMOVE per sprint, issue and comment it deletes, and
 * those must not each start work of their own.
 *
 * - Comment records (the bulk) start no cascade: nothing lives under a comment. Those of a comment
 *   with attachments, and of its trash item's removal, bring its attachments to where it is now
 *   (lib/db/attachments/attachments.ts, `settleCommentAttachments`): into the trash, back, or away.
 * - A group holding the project's own record runs the project cascade once; it covers the rest.
 * - Otherwise one consistent GetItem of the project decides: if the project is gone, its own record
 *   (delivered in this or another batch) empties the whole partition, so these records need nothing.
 *   Nothing can be written under a deleted project (every create checks the project in its
 *   transaction), so that cascade cannot miss anything.
 * - Otherwise each sprint/issue cascade runs (user deletes of a sprint or an issue). Issue records
 *   emitted by a sprint cascade cost one Query that finds nothing (their comments went first).
 * - A pending cascade continues from where it stopped.
 *
 * A cascade out of time or failing is written down as pending (see the top of this file) and its
 * record counts as done. Only a record whose outcome could not be written down is reported failed:
 * the result names the first such record in batch order, from which the stream is retried
 * (everything is idempotent).
 */
export async function cascadeBatch(records: DynamoDBRecord[], options: BatchOptions = {}): Promise<CascadeBatchResult> {
  const { groups, continuations, parents } = cascadeWorkOf(records);
  const result: CascadeBatchResult = { deleted: 0, parents, skipped: 0, continued: 0, givenUp: 0, errors: [] };
  let firstFailedIndex: number | undefined;
  const failed: NoteFailure = (indexes, err) => {
    const first = Math.min(...indexes);
    firstFailedIndex = firstFailedIndex === undefined ? first : Math.min(firstFailedIndex, first);
    result.errors.push(err);
  };
  await settleAttachments(records, result, failed);
  await keepDeletedContainers(records, failed);
  // A project gone for good: the GitHub repository it connected, outside its partition, is free again.
  await forgetPurgedRepositories(records, failed);
  const fresh = (parent: CascadeParent): PendingCascade => ({ parent, attempts: 0, status: 'pending' });

  await forEachLimited(groups, 4, async (group) => {
    try {
      const projectRecord = group.entries.find((e) => e.parent.kind === 'project');
      if (projectRecord) {
        await runAndRecord(fresh(projectRecord.parent), false, options, result);
        result.skipped += group.entries.length - 1;
        return;
      }
      // Gone for good: its own purge empties it. In the trash, what is deleted or purged in it still cascades.
      if (await goneForGood(keys.project(group.orgId, group.projectId), trashedKey(group.orgId, 'project', group.projectId))) {
        result.skipped += group.entries.length;
        return;
      }
      const unique = new Map(group.entries.map((e) => [JSON.stringify(e.parent), e.parent]));
      result.skipped += group.entries.length - unique.size;
      await forEachLimited([...unique.values()], PARALLELISM, async (parent) => {
        await runAndRecord(fresh(parent), false, options, result);
      });
    } catch (err) {
      failed(
        group.entries.map((e) => e.index),
        err,
      );
    }
  });
  await forEachLimited(continuations, 4, async ({ index, pending }) => {
    try {
      await runAndRecord(pending, true, options, result);
    } catch (err) {
      failed([index], err);
    }
  });

  const firstFailure = firstFailedIndex === undefined ? undefined : records[firstFailedIndex]?.dynamodb?.SequenceNumber;
  return { ...result, firstFailure };
}

/** Where a batch's failures are noted: the records' indexes, and the error. */
type NoteFailure = (indexes: number[], err: unknown) => void;

/**
 * What a batch's records mean for attachments: their comment's attachments follow it, trashed or
 * expired ones give their bytes back, and the files of those removed are deleted.
 */
async function settleAttachments(records: DynamoDBRecord[], result: CascadeBatchResult, failed: NoteFailure) {
  // The files of removed attachments (deleted, or gone with their comment, issue, sprint or
  // project): DeleteObject is idempotent, so a replayed record costs a request and no harm.
  // The attachments of comments that had some, moved into the trash, back, or away: they follow
  // their comment (the files of those removed follow, as above, in a later batch).
  for (const [index, record] of records.entries()) {
    const comment = commentFilesOf(record);
    try {
      if (comment) await settleCommentAttachments(comment.orgId, comment.projectId, comment.issueId, comment.commentId);
    } catch (err) {
      failed([index], err);
    }
  }
  // Attachments trashed on their own, their trash item purged or expired: they go with their bytes
  // (their files follow, as above, in a later batch); restored, they stay.
  for (const [index, record] of records.entries()) {
    const trashed = trashedAttachmentOf(record);
    try {
      if (trashed) await releaseTrashedAttachment(trashed, trashed.deletedAt);
    } catch (err) {
      failed([index], err);
    }
  }
  // Pending attachments never completed, removed by their TTL: their bytes come back (once).
  for (const [index, record] of records.entries()) {
    const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
    if (old?.type?.S !== 'attachment' || !removedByTtl(record)) continue;
    try {
      await releaseExpiredAttachment(old);
    } catch (err) {
      failed([index], err);
    }
  }
  const files = removedAttachmentFiles(records);
  if (files.length > 0) {
    try {
      await deleteObjects(files.map((f) => f.objectKey));
      result.deleted += files.length;
    } catch (err) {
      failed(
        files.map((f) => f.index),
        err,
      );
    }
  }
}

/** A sprint or project just deleted into the trash: its trash item holds it as the stream shows it deleted. */
async function keepDeletedContainers(records: DynamoDBRecord[], failed: NoteFailure) {
  for (const [index, record] of records.entries()) {
    const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
    const type = old?.type?.S;
    if (type !== 'sprint' && type !== 'project') continue;
    const parent = cascadeParentOf(record);
    if (parent?.kind !== 'sprint' && parent?.kind !== 'project') continue;
    try {
      const recordMs = (record.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000;
      await keepDeletedImage(parent, unmarshall(old as Record<string, SdkAttributeValue>), recordMs);
    } catch (err) {
      failed([index], err);
    }
  }
}

/**
 * Finishes one cascade now, without a deadline (operators: `cascade:resume`, `cascade:sweep`):
 * from where its pending entry stopped, if it has one; the entry goes once it is done.
 */
export async function resumeCascade(parent: CascadeParent, after?: Record<string, unknown>): Promise<number> {
  const deleted = await cascade(parent, { after });
  await finishPendingCascade(parent);
  return deleted;
}

/**
 * The cascades nobody finished: partitions of projects that are gone, issues of sprints that are
 * gone, comments of issues that are gone (a stream record lost for good, e.g. one past the
 * stream's 24-hour retention). Operators only (`cascade:sweep`): this reads the whole table with
 * a Scan of keys, which no request path ever does.
 */
export async function findOrphanedCascades(): Promise<CascadeParent[]> {
  const partitions = new Map<string, PartitionKeys>();
  await scanPages(
    { ProjectionExpression: 'PK, SK, LSK', FilterExpression: 'contains(PK, :p)', ExpressionAttributeValues: { ':p': '#P#' } },
    (items) => {
      for (const item of items) {
        const pk = String(item.PK);
        if (!parseProjectPk(pk)) continue;
        if (!partitions.has(pk)) partitions.set(pk, noPartitionKeys());
        notePartitionItem(partitions.get(pk) as PartitionKeys, { SK: String(item.SK), LSK: item.LSK as string | undefined });
      }
    },
  );
  const orphans: CascadeParent[] = [];
  for (const [pk, part] of partitions) {
    const { orgId, projectId } = parseProjectPk(pk) as { orgId: number; projectId: number };
    if (await itemExists(keys.project(orgId, projectId))) orphans.push(...orphansIn(orgId, projectId, part));
    else orphans.push({ kind: 'project', orgId, projectId });
  }
  return orphans;
}

/** True when the parent a cascade would empty is itself gone (a cascade under a live parent would delete live data). */
export async function parentIsGone(parent: CascadeParent): Promise<boolean> {
  const key =
    parent.kind === 'project'
      ? keys.project(parent.orgId, parent.projectId)
      : parent.kind === 'sprint'
        ? keys.sprint(parent.orgId, parent.projectId, parent.sprintId)
        : parent.kind === 'issue'
          ? keys.issue(parent.orgId, parent.projectId, parent.issueId)
          : parent.kind === 'label'
            ? keys.label(parent.orgId, parent.projectId, parent.labelId)
            : keys.state(parent.orgId, parent.projectId, parent.stateId);
  return !(await itemExists(key));
}

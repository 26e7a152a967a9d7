import type { DynamoDBRecord } from 'aws-lambda';
import {
  afterFailure,
  CascadeInterrupted,
  checkDeadline,
  PARALLELISM,
  type CascadeOptions,
  type CascadeParent,
  type PagePosition,
  type PendingCascade,
} from '../model/cascades.ts';
import { forEachLimited } from '../model/limited.ts';
import { deleteObjects } from '../aws/objects.ts';
import {
  releaseExpiredAttachment,
  releaseTrashedAttachment,
  settleCommentAttachments,
  settleIssueCommentAttachments,
} from './attachment-settling.ts';
import { labelCarriers, labelIsPurged, takeLabelOff } from '../db/issues/labels.ts';
import {
  cascadeWorkOf,
  commentFilesOf,
  deletedContainerOf,
  expiredAttachmentOf,
  finishPendingCascade,
  removedAttachmentFileOf,
  savePendingCascade,
  trashedAttachmentOf,
} from '../db/cascades/cascade-records.ts';
import { deleteIssueComments, deleteProjectContents, deleteSprintIssues, releaseChildren } from './cascade-deletes.ts';
import { projectGoneForGood } from '../db/projects/project-trash.ts';
import { moveIssuesOffState } from './state-cascade.ts';
import { settleFieldValues } from './field-cascade.ts';
import { whereIssueIs } from '../db/issues/issue-restore.ts';
import { containerCascade, keepDeletedImage } from './container-trash.ts';
import { forgetPurgedRepositories } from './repository-purge.ts';

export { CascadeInterrupted, failureMessage, MAX_ATTEMPTS, type CascadeOptions } from '../model/cascades.ts';
export type { CascadeParent, PendingCascade } from '../model/cascades.ts';
export { sendToQueue as sendFailureMessage } from '../aws/queue.ts';
export {
  listPendingCascades,
  pendingCascadeFromItem,
  pendingCascadeOf,
  savePendingCascade,
} from '../db/cascades/cascade-records.ts';
export { findOrphanedCascades, parentIsGone } from '../db/cascades/cascade-deletes.ts';
export { deleteSprintIssues } from './cascade-deletes.ts';

/**
 * The cascade of deletes, fed by the table's stream (REMOVE records). A parent's delete is one
 * transaction that answers at once; everything under it is unreachable from then on (reads check
 * ancestors) and is removed here:
 *
 * - a project: every item of its partition (sprints, issues, comments, GitHub links), one Query
 *   over the item collection at a time, never a Scan; once it is purged, the GitHub repository it
 *   connected (lib/jobs/repository-purge.ts);
 * - a sprint: its issues (LSI1 `S#<sprint>#`) and their comments;
 * - an issue: its comments, activity, attachments and GitHub links (SK `ISSUE#<issue>#`), and
 *   its children's parent, once it is purged: its trash item's REMOVE (a purge, or its expiry by
 *   TTL), not its delete into the trash, which they outlive (docs/trash.md);
 * - a label: not a parent but a value: its id is taken off the issues of its project that carry it
 *   (`removeDeletedLabel`, a page of carriers at a time) once it is purged: its trash item's REMOVE (a purge,
 *   or its expiry by TTL), not its delete into the trash, which its issues outlive.
 * - a state: not a parent but a value: the state its issues went to is written on each of them
 *   (lib/jobs/state-cascade.ts, `moveIssuesOffState`).
 * - a custom field deleted, or options of it: not a parent but a value: its values are taken off
 *   (or its deleted options dropped from) the issues that hold them (lib/jobs/field-cascade.ts).
 *   Its delete writes its pending cascade in the same transaction, which starts it.
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
  const lists = ['S#', 'B#'] as const;
  const after = options.after;
  let list = lists.find((l) => l === after?.list) ?? 'S#';
  let start = after?.key as PagePosition | undefined;
  let updated = 0;
  for (;;) {
    const page = await labelCarriers(orgId, projectId, labelId, list, start);
    await Promise.all(page.carriers.map((key) => takeLabelOff(key, labelId)));
    updated += page.carriers.length;
    start = page.next;
    if (!start) {
      const next = lists[lists.indexOf(list) + 1];
      if (!next) return updated;
      list = next;
    }
    checkDeadline(options, { list, ...(start ? { key: start } : {}) });
  }
}

/** Runs the cascade of one parent. Returns the number of items deleted (for a label: the issues it was taken off). */
export async function cascade(parent: CascadeParent, options: CascadeOptions = {}): Promise<number> {
  switch (parent.kind) {
    // In the trash, its issues are taken out and put back (lib/jobs/container-trash.ts); purged, emptied.
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
    case 'field':
      return settleFieldValues(parent.orgId, parent.projectId, parent.fieldId, options);
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

/** Where a cascade given up is announced (the consumer's failure queue); a log line when unset (locally). */
export type FailureNotifier = (pending: PendingCascade) => Promise<void>;

export interface BatchOptions extends CascadeOptions {
  notifyFailure?: FailureNotifier;
}

/** The object keys of the attachments a batch's REMOVE records show gone, with each record's place in the batch. */
function removedAttachmentFiles(records: DynamoDBRecord[]): { index: number; objectKey: string }[] {
  return records.flatMap((record, index) => {
    const objectKey = removedAttachmentFileOf(record);
    return objectKey ? [{ index, objectKey }] : [];
  });
}

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
 *   (lib/jobs/attachment-settling.ts, `settleCommentAttachments`): into the trash, back, or away.
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
      if (await projectGoneForGood(group.orgId, group.projectId)) {
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
    const old = expiredAttachmentOf(record);
    if (!old) continue;
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
    const deleted = deletedContainerOf(record);
    if (!deleted) continue;
    try {
      const recordMs = (record.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000;
      await keepDeletedImage(deleted.container, deleted.image, recordMs);
    } catch (err) {
      failed([index], err);
    }
  }
}

/**
 * Finishes one cascade now, without a deadline (operators: `cascade:resume`, `cascade:sweep`):
 * from where its pending entry stopped, if it has one; the entry goes once it is done.
 */
export async function resumeCascade(parent: CascadeParent, after?: PagePosition): Promise<number> {
  const deleted = await cascade(parent, { after });
  await finishPendingCascade(parent);
  return deleted;
}

import type { DynamoDBRecord } from 'aws-lambda';
import { BatchWriteCommand, DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  afterFailure,
  cascadeWorkOf,
  commentFilesOf,
  idOf,
  noPartitionKeys,
  notePartitionItem,
  orphansIn,
  pendingCascadeFromItem,
  pendingCascadeItem,
  type CascadeParent,
  type PartitionKeys,
  type PendingCascade,
} from './cascade-work.ts';
import { unclassified, type IssueChange, isClosed } from '../model/derivations.ts';
import { issueStateOf } from './issue-item.ts';
import { issueWriteItems } from './issue-write.ts';
import { asActor } from '../context/actor.ts';
import { childrenOf } from './sub-issues.ts';
import type { IssueItem } from './issues.ts';
import { storedRelations, unlinkRemovedIssues, type RemovedIssue } from './relations.ts';
import type { IssueStatus } from '../schemas/issues.ts';
import { queryPages, scanPages, type QueryInput } from './query.ts';
import { forEachLimited } from '../model/limited.ts';
import { deleteObjects } from './objects.ts';
import {
  attachmentRemoval,
  releaseExpiredAttachment,
  settleCommentAttachments,
  settleIssueCommentAttachments,
} from './attachments.ts';
import { db, tableName } from './client.ts';
import {
  collections,
  commentPointerOf,
  keys,
  parseProjectPk,
  pendingCascadesPk,
  projectPk,
  skPrefixes,
  type Key,
} from './keys.ts';
import { getItem, itemExists, Refused, revisionCondition, transact, type GuardedItem } from './transactions.ts';
import { labelIsPurged, removeLabelFromIssues } from './labels.ts';
import { moveIssuesOffState } from './state-cascade.ts';
import { whereIssueIs } from './issue-trash.ts';

export { cascadeParentOf, failureMessage, MAX_ATTEMPTS, pendingCascadeFromItem, pendingCascadeOf } from './cascade-work.ts';
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
 * - a project: every item of its partition (sprints, issues, comments), one Query over the item
 *   collection at a time, never a Scan;
 * - a sprint: its issues (LSI1 `S#<sprint>#`) and their comments;
 * - an issue: its comments, activity and attachments (SK `ISSUE#<issue>#`), and its children's
 *   parent, once it is purged: its trash item's REMOVE (a purge, or its expiry by TTL), not its
 *   delete into the trash, which they outlive (docs/trash.md);
 * - a label: not a parent but a value: its id is taken off the issues of its project that carry it
 *   (lib/db/labels.ts, `removeLabelFromIssues`) once it is purged: its trash item's REMOVE (a purge,
 *   or its expiry by TTL), not its delete into the trash, which its issues outlive.
 * - a state: not a parent but a value: the state its issues went to is written on each of them
 *   (lib/db/state-cascade.ts, `moveIssuesOffState`).
 * - with a project or a sprint, the relations of its issues to issues outside it (their sides, and
 *   the counts of open blockers they moved; lib/db/relations.ts). An issue deleted on its own takes
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

/** Thrown between pages when the invocation is about to run out of time, with where it stopped. */
export class CascadeInterrupted extends Error {
  override readonly name = 'CascadeInterrupted';
  /** The position of the cascade's own paging to continue from (undefined: from the start). */
  readonly after: Record<string, unknown> | undefined;
  constructor(after?: Record<string, unknown>) {
    super('cascade interrupted by the deadline; it continues from where it stopped');
    this.after = after;
  }
}

export interface CascadeOptions {
  /**
   * Epoch ms after which no new page is started. The first page of each step always runs, so a
   * cascade makes progress whatever the deadline.
   */
  deadline?: number | undefined;
  /** Where an interrupted cascade stopped: its paging starts after this key. */
  after?: Record<string, unknown> | undefined;
}

/** Keys read per Query page: bounds memory, and the BatchWrites of one page run in parallel. */
const PAGE_SIZE = 250;
/** BatchWriteItem's limit. */
const BATCH_SIZE = 25;
/** Parallel BatchWrites per page, and parallel issue cascades of one sprint or one record batch. */
const PARALLELISM = 8;
const MAX_UNPROCESSED_RETRIES = 8;

function checkDeadline(options: CascadeOptions, at: Record<string, unknown> | undefined) {
  if (options.deadline !== undefined && Date.now() > options.deadline) throw new CascadeInterrupted(at);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Deletes items by key; a comment's pointer (in the organisation's partition, `keys.commentPointer`)
 * goes first, so that an interrupted page never leaves a pointer whose comment the next Query no
 * longer finds.
 */
async function deleteKeys(itemKeys: Key[], items: Record<string, unknown>[] = []): Promise<void> {
  const released = await releaseAttachments(items);
  const rest = released.size === 0 ? itemKeys : itemKeys.filter((k) => !released.has(`${k.PK}|${k.SK}`));
  const pointers = rest.map(commentPointerOf).filter((k) => k !== undefined);
  if (pointers.length > 0) await deleteBatches(pointers);
  await deleteBatches(rest);
}

const ATTACHMENT_SK = /^ISSUE#(\d{10})#F#(\d{10})$/;

/**
 * Removes the attachments among a page's items (read with their `size`), one transaction each that
 * also takes their bytes off the organisation's count (lib/db/attachments.ts), one after the other
 * (they share the organisation's item). A page read again after an interruption finds the ones
 * already removed refused by their condition, and leaves them: the count stays exact. Their files go
 * when the stream shows their removal (`cascadeBatch`). Returns the keys it removed.
 */
async function releaseAttachments(items: Record<string, unknown>[]): Promise<Set<string>> {
  const done = new Set<string>();
  for (const item of items) {
    const m = ATTACHMENT_SK.exec(String(item.SK));
    const project = m && parseProjectPk(String(item.PK));
    if (!m || !project) continue;
    const attachment = { ...project, issueId: Number(m[1]), id: Number(m[2]), size: Number(item.size ?? 0) };
    try {
      await transact(attachmentRemoval(attachment, false));
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
    }
    done.add(`${String(item.PK)}|${String(item.SK)}`);
  }
  return done;
}

/** Deletes keys in BatchWrites of 25 (in parallel), retrying UnprocessedItems with backoff. */
async function deleteBatches(itemKeys: Key[]): Promise<void> {
  const chunks: Key[][] = [];
  for (let i = 0; i < itemKeys.length; i += BATCH_SIZE) chunks.push(itemKeys.slice(i, i + BATCH_SIZE));
  await forEachLimited(chunks, PARALLELISM, async (chunk) => {
    let requests = chunk.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`BatchWrite left ${requests.length} deletes unprocessed`);
      if (attempt > 0) await sleep(Math.min(2000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (out.UnprocessedItems?.[tableName()] ?? []).map((r) => ({
        DeleteRequest: { Key: r.DeleteRequest?.Key as Key },
      }));
    }
  });
}

/**
 * Pages through a Query that returns keys (`queryPages`), handing each page to `onPage` before
 * reading the next (deleting what was read does not disturb the paging: ExclusiveStartKey is a
 * position). Starts after `options.after`; past the deadline it stops between pages (never before
 * the first) with the position reached. A stop inside `onPage` continues from this page again:
 * what it had done is gone, so the page then costs only what was left.
 */
async function forEachPage(
  input: QueryInput,
  options: CascadeOptions,
  onPage: (pageKeys: Key[], items: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  let start = options.after;
  let seen = 0;
  await queryPages(input, { start, limit: () => PAGE_SIZE }, async (items, _count, next) => {
    const pageKeys = items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) }));
    seen += pageKeys.length;
    if (pageKeys.length > 0) {
      await onPage(pageKeys, items).catch((err: unknown) => {
        throw err instanceof CascadeInterrupted ? new CascadeInterrupted(start) : err;
      });
    }
    if (next) checkDeadline(options, next);
    start = next;
  });
  return seen;
}

/**
 * Takes the issues among `items` (read with `assignee_id` and `issue_number`) out of the indexes
 * kept outside the project's partition, before the issues themselves are deleted: the number's
 * pointer (`ISSUEKEY#`, deleted only while it still points to this issue: a new project may have
 * taken the prefix and the number already), and an assigned issue's entry in its assignee's index
 * with the count (lib/db/assigned.ts). An interrupted page is read again; what was already taken
 * out is refused by its condition and left alone.
 */
async function unindexIssues(
  orgId: number,
  projectId: number,
  items: Record<string, unknown>[],
  parents: 'outlive' | 'go' = 'go',
): Promise<void> {
  const issues = items
    .filter((item) => ISSUE_SK.test(String(item.SK)))
    .map((item) => ({
      issueId: issueIdOf(item as unknown as Key),
      number: typeof item.issue_number === 'string' ? item.issue_number : undefined,
      assigneeId: typeof item.assignee_id === 'number' ? item.assignee_id : undefined,
    }));
  await unparentIssues(orgId, projectId, items, parents);
  const chunks: (typeof issues)[] = [];
  for (let i = 0; i < issues.length; i += INDEX_CHUNK) chunks.push(issues.slice(i, i + INDEX_CHUNK));
  // Their search records (the `search-index` derivation) beside: plain deletes, so a page read again deletes nothing twice.
  await forEachLimited(chunks, PARALLELISM, async (chunk) => {
    await Promise.all([transact(searchDeletes(orgId, projectId, chunk)), unindexChunk(orgId, projectId, chunk)]);
  });
}

/** The number pointers and assignee entries of a chunk of deleted issues, in one transaction (one by one when refused). */
async function unindexChunk(
  orgId: number,
  projectId: number,
  chunk: { issueId: number; number?: string | undefined; assigneeId?: number | undefined }[],
): Promise<void> {
  {
    const all = indexDeletes(orgId, projectId, chunk);
    if (all.length === 0) return;
    try {
      await transact(all);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      // One of them was taken out already (a page read again), or its number reused: one by one,
      // each pointer on its own, each entry with its count.
      await forEachLimited(chunk, PARALLELISM, async ({ issueId, number, assigneeId }) => {
        if (number !== undefined) await transact(indexDeletes(orgId, projectId, [{ issueId, number }])).catch(ignoreRefused);
        if (assigneeId !== undefined) {
          await transact(indexDeletes(orgId, projectId, [{ issueId, assigneeId }])).catch(ignoreRefused);
        }
      });
    }
  }
}

/**
 * Takes the deleted issues among `items` that have a parent out of their parent's children index
 * (`sub-issue-index`) and, when the parents may outlive them (`outlive`: a sprint's cascade, whose
 * issues' parents may be in other lists), out of the parent's summary (`parent-summary`): one
 * transaction per issue, the record's removal guarded, so that a page read again subtracts nothing
 * twice; a parent gone meanwhile keeps nothing.
 */
async function unparentIssues(
  orgId: number,
  projectId: number,
  items: Record<string, unknown>[],
  parents: 'outlive' | 'go',
): Promise<void> {
  const children = items
    .filter((item) => ISSUE_SK.test(String(item.SK)) && typeof item.parent_id === 'number')
    .map((item) => issueStateOf(orgId, { ...item, project_id: projectId }));
  await forEachLimited(children, PARALLELISM, async (child) => {
    const only = parents === 'outlive' ? ['sub-issue-index', 'parent-summary'] : ['sub-issue-index'];
    const write = (keep: string[]) =>
      transact(issueWriteItems({ orgId, projectId, issues: [], changes: [{ before: child }], only: keep, guardedRemoves: true }));
    await write(only).catch(async (err: unknown) => {
      if (!(err instanceof Refused)) throw err;
      // `gone`: taken out already (a page read again). `issue`: the parent went first.
      if (err.reason === 'issue') await write(['sub-issue-index']).catch(ignoreRefused);
    });
  });
}

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
  // Made for whoever deleted the parent (its delete's marker, lib/db/deletions.ts): the change
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
                    UpdateExpression: 'SET parent_id = :null, parent_number = :null, updated_at = :now ADD rev :one',
                    ConditionExpression: `parent_id = :parent AND ${revisionCondition(child.rev)}`,
                    ExpressionAttributeValues: {
                      ':null': null,
                      ':now': now,
                      ':one': 1,
                      ':parent': issueId,
                      ':rev': child.rev ?? 0,
                    },
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

/** Issues whose index items one cascade transaction removes (at most 3 items each: 90 of 100). */
const INDEX_CHUNK = 30;

const ignoreRefused = (err: unknown) => {
  if (!(err instanceof Refused)) throw err;
};

/** What a cascade keeps of the issues it deletes: what lives outside the deleted parent (lib/model/derivations.ts). */
const OUTSIDE = { pointer: ['number-pointer'], assignee: ['assignee-index'] } as const;

/**
 * The number pointers (while they still point to these issues) and assignee entries of `issues`,
 * as transaction items (lib/db/issue-write.ts): their list's counters went with the parent.
 */
function searchDeletes(orgId: number, projectId: number, issues: { issueId: number }[]): GuardedItem[] {
  const changes = issues.map((i): IssueChange => ({
    before: {
      orgId,
      projectId,
      id: i.issueId,
      number: '',
      sprintId: null,
      position: 0,
      status: 'todo',
      storyPoints: null,
      assigneeId: null,
      updatedAt: '',
      ...unclassified,
    },
  }));
  return issueWriteItems({ orgId, projectId, issues: [], changes, only: ['search-index'] });
}

function indexDeletes(
  orgId: number,
  projectId: number,
  issues: { issueId: number; number?: string | undefined; assigneeId?: number | undefined }[],
): GuardedItem[] {
  const gone = (i: (typeof issues)[number]): IssueChange => ({
    before: {
      orgId,
      projectId,
      id: i.issueId,
      number: i.number ?? '',
      sprintId: null,
      position: 0,
      status: 'todo',
      storyPoints: null,
      assigneeId: i.assigneeId ?? null,
      updatedAt: '',
      ...unclassified,
    },
  });
  const write = (only: readonly string[], of: typeof issues) =>
    of.length === 0 ? [] : issueWriteItems({ orgId, projectId, issues: [], changes: of.map(gone), only, guardedRemoves: true });
  return [
    ...write(
      OUTSIDE.pointer,
      issues.filter((i) => i.number !== undefined),
    ),
    ...write(
      OUTSIDE.assignee,
      issues.filter((i) => i.assigneeId !== undefined),
    ),
  ];
}

const ISSUE_SK = /^ISSUE#\d+$/;

/** The issues among `items` that hold relations, as the relation cleanup takes them (lib/db/relations.ts). */
const removedIssues = (projectId: number, items: Record<string, unknown>[]): RemovedIssue[] =>
  items
    .filter((item) => ISSUE_SK.test(String(item.SK)) && item.relations !== undefined)
    .map((item) => ({
      projectId,
      issueId: issueIdOf(item as unknown as Key),
      closed: isClosed(item.status as IssueStatus),
      relations: storedRelations(item),
    }));

/** Deletes every item of a deleted project's partition. Returns the number of items deleted. */
export async function deleteProjectContents(orgId: number, projectId: number, options: CascadeOptions = {}): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk },
      ProjectionExpression:
        'PK, SK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points, #size',
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
      // Comments and activity alike (lib/db/keys.ts: both are stored under the issue's SK).
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.underIssue(issueId) },
      // Attachments' sizes too: their bytes come off the organisation's count.
      ProjectionExpression: 'PK, SK, #size',
      ExpressionAttributeNames: { '#size': 'size' },
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
  const issues = collections.sprintIssues(orgId, projectId, sprintId);
  let comments = 0;
  const issueCount = await forEachPage(
    {
      // LSI1 (not the keys-only LSI1Keys): each issue's number and assignee are read too.
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': issues.pk, ':prefix': issues.prefix },
      ProjectionExpression:
        'PK, SK, LSK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points',
      ExpressionAttributeNames: { '#status': 'status' },
    },
    options,
    async (issueKeys, items) => {
      await unindexIssues(orgId, projectId, items, 'outlive');
      await unlinkRemovedIssues(orgId, removedIssues(projectId, items));
      await forEachLimited(issueKeys, PARALLELISM, async (key) => {
        // Awaited first: `comments += await ...` would add to the value read before the wait.
        const deleted = await deleteIssueComments(orgId, projectId, issueIdOf(key), { deadline: options.deadline });
        comments += deleted;
      });
      await deleteKeys(issueKeys);
    },
  );
  return issueCount + comments;
}

function issueIdOf(key: Key): number {
  const m = /^ISSUE#(\d+)$/.exec(key.SK);
  if (!m) throw new Error(`not an issue key: ${key.SK}`);
  return Number(m[1]);
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
    case 'project':
      return deleteProjectContents(parent.orgId, parent.projectId, options);
    case 'sprint':
      return deleteSprintIssues(parent.orgId, parent.projectId, parent.sprintId, options);
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
  const { parent } = pending;
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.pendingCascade(parent.kind, parent.orgId, parent.projectId, idOf(parent)), ...pendingCascadeItem(pending) },
    }),
  );
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
 *   (lib/db/attachments.ts, `settleCommentAttachments`): into the trash, back, or away.
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
  const failed = (indexes: number[], err: unknown) => {
    const first = Math.min(...indexes);
    firstFailedIndex = firstFailedIndex === undefined ? first : Math.min(firstFailedIndex, first);
    result.errors.push(err);
  };
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
  const fresh = (parent: CascadeParent): PendingCascade => ({ parent, attempts: 0, status: 'pending' });

  await forEachLimited(groups, 4, async (group) => {
    try {
      const projectRecord = group.entries.find((e) => e.parent.kind === 'project');
      if (projectRecord) {
        await runAndRecord(fresh(projectRecord.parent), false, options, result);
        result.skipped += group.entries.length - 1;
        return;
      }
      if (!(await itemExists(keys.project(group.orgId, group.projectId)))) {
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

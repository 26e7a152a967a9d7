import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { BatchWriteCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { collections, keys, projectPk, skPrefixes, type Key } from './keys.ts';

/**
 * The cascade of deletes, fed by the table's stream (REMOVE records). A parent's delete is one
 * transaction that answers at once; everything under it is unreachable from then on (reads check
 * ancestors) and is removed here:
 *
 * - a project: every item of its partition (sprints, issues, comments), one Query over the item
 *   collection at a time, never a Scan;
 * - a sprint: its issues (LSI1 `S#<sprint>#`) and their comments;
 * - an issue: its comments (SK `ISSUE#<issue>#C#`).
 *
 * Every step is a delete of what a Query just found, so running a record twice, or after the
 * project cascade already emptied the partition, is harmless. Memory is bounded by one page of keys.
 */

/** What a REMOVE record asks to be cascaded. */
export type CascadeParent =
  | { kind: 'project'; orgId: number; projectId: number }
  | { kind: 'sprint'; orgId: number; projectId: number; sprintId: number }
  | { kind: 'issue'; orgId: number; projectId: number; issueId: number };

/** Thrown between pages when the invocation is about to run out of time; the record is retried. */
export class CascadeInterrupted extends Error {
  constructor() {
    super('cascade interrupted by the deadline; it resumes on retry');
  }
}

export interface CascadeOptions {
  /** Epoch ms after which no new page is started (the record is reported failed and retried). */
  deadline?: number;
}

/** Keys read per Query page: bounds memory, and the BatchWrites of one page run in parallel. */
const PAGE_SIZE = 250;
/** BatchWriteItem's limit. */
const BATCH_SIZE = 25;
/** Parallel BatchWrites per page, and parallel issue cascades of one sprint or one record batch. */
const PARALLELISM = 8;
const MAX_UNPROCESSED_RETRIES = 8;

const numberOf = (v: AttributeValue | undefined): number | undefined =>
  v?.N !== undefined && Number.isSafeInteger(Number(v.N)) ? Number(v.N) : undefined;

/** The parent a stream record asks to cascade, or undefined for anything else (writes, comments...). */
export function cascadeParentOf(record: DynamoDBRecord): CascadeParent | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  const old = record.dynamodb?.OldImage;
  if (!old) return undefined;
  const type = old.type?.S;
  const orgId = numberOf(old.org_id);
  const id = numberOf(old.id);
  if (orgId === undefined || id === undefined) return undefined;
  if (type === 'project') return { kind: 'project', orgId, projectId: id };
  const projectId = numberOf(old.project_id);
  if (projectId === undefined) return undefined;
  if (type === 'sprint') return { kind: 'sprint', orgId, projectId, sprintId: id };
  if (type === 'issue') return { kind: 'issue', orgId, projectId, issueId: id };
  return undefined;
}

function checkDeadline(options: CascadeOptions) {
  if (options.deadline !== undefined && Date.now() > options.deadline) throw new CascadeInterrupted();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` over `items` with at most `limit` in flight. After a failure no new item starts; the
 * call settles once the ones in flight have, then rethrows the first error.
 */
async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
}

/** Deletes keys in BatchWrites of 25 (in parallel), retrying UnprocessedItems with backoff. */
async function deleteKeys(itemKeys: Key[]): Promise<void> {
  const chunks: Key[][] = [];
  for (let i = 0; i < itemKeys.length; i += BATCH_SIZE) chunks.push(itemKeys.slice(i, i + BATCH_SIZE));
  await forEachLimited(chunks, PARALLELISM, async (chunk) => {
    let requests = chunk.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`BatchWrite left ${requests.length} deletes unprocessed`);
      if (attempt > 0) await sleep(Math.min(2000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (out.UnprocessedItems?.[tableName] ?? []).map((r) => ({ DeleteRequest: { Key: r.DeleteRequest?.Key as Key } }));
    }
  });
}

/**
 * Pages through a Query that returns keys, handing each page to `onPage` before reading the next
 * (deleting what was read does not disturb the paging: ExclusiveStartKey is a position).
 */
async function forEachPage(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  options: CascadeOptions,
  onPage: (pageKeys: Key[]) => Promise<void>,
): Promise<number> {
  let start: Record<string, unknown> | undefined;
  let seen = 0;
  do {
    checkDeadline(options);
    const out = await db.send(
      new QueryCommand({
        ...input,
        TableName: tableName,
        ConsistentRead: true,
        Limit: PAGE_SIZE,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const pageKeys = (out.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) }));
    seen += pageKeys.length;
    if (pageKeys.length > 0) await onPage(pageKeys);
    start = out.LastEvaluatedKey;
  } while (start);
  return seen;
}

/** Deletes every item of a deleted project's partition. Returns the number of items deleted. */
export async function deleteProjectContents(orgId: number, projectId: number, options: CascadeOptions = {}): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk },
      ProjectionExpression: 'PK, SK',
    },
    options,
    deleteKeys,
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
      ProjectionExpression: 'PK, SK',
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
      IndexName: 'LSI1Keys',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': issues.pk, ':prefix': issues.prefix },
    },
    options,
    async (issueKeys) => {
      await forEachLimited(issueKeys, PARALLELISM, async (key) => {
        comments += await deleteIssueComments(orgId, projectId, issueIdOf(key), options);
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

/** True when the project item still exists (a consistent read of its key only). */
async function projectExists(orgId: number, projectId: number): Promise<boolean> {
  const out = await db.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.project(orgId, projectId),
      ConsistentRead: true,
      ProjectionExpression: 'PK',
    }),
  );
  return out.Item !== undefined;
}

/** Runs the cascade of one parent. Returns the number of items deleted. */
export async function cascade(parent: CascadeParent, options: CascadeOptions = {}): Promise<number> {
  switch (parent.kind) {
    case 'project':
      return deleteProjectContents(parent.orgId, parent.projectId, options);
    case 'sprint':
      return deleteSprintIssues(parent.orgId, parent.projectId, parent.sprintId, options);
    case 'issue':
      return deleteIssueComments(parent.orgId, parent.projectId, parent.issueId, options);
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
  /** Unexpected errors met (a deadline interruption is not one), for the log. */
  errors: unknown[];
}

interface Group {
  orgId: number;
  projectId: number;
  entries: { index: number; parent: CascadeParent }[];
}

/**
 * Processes one batch of stream records. Records are grouped by project partition, which keeps
 * the cost of a big delete flat: the project cascade itself emits one REMOVE per sprint, issue and
 * comment it deletes, and those must not each start work of their own.
 *
 * - Comment records (the bulk) are ignored: nothing lives under a comment.
 * - A group holding the project's own record runs the project cascade once; it covers the rest.
 * - Otherwise one consistent GetItem of the project decides: if the project is gone, its own record
 *   (delivered in this or another batch) empties the whole partition, so these records need nothing.
 *   Nothing can be written under a deleted project (every create checks the project in its
 *   transaction), so that cascade cannot miss anything.
 * - Otherwise each sprint/issue cascade runs (user deletes of a sprint or an issue). Issue records
 *   emitted by a sprint cascade cost one Query that finds nothing (their comments went first).
 *
 * A failing group marks its records failed; the result names the first failed record in batch
 * order, from which the stream is retried (everything is idempotent).
 */
export async function cascadeBatch(records: DynamoDBRecord[], options: CascadeOptions = {}): Promise<CascadeBatchResult> {
  const groups = new Map<string, Group>();
  let parents = 0;
  records.forEach((record, index) => {
    const parent = cascadeParentOf(record);
    if (!parent) return;
    parents++;
    const pk = projectPk(parent.orgId, parent.projectId);
    let group = groups.get(pk);
    if (!group) {
      group = { orgId: parent.orgId, projectId: parent.projectId, entries: [] };
      groups.set(pk, group);
    }
    group.entries.push({ index, parent });
  });

  let deleted = 0;
  let skipped = 0;
  let firstFailedIndex: number | undefined;
  const errors: unknown[] = [];
  await forEachLimited([...groups.values()], 4, async (group) => {
    try {
      const projectRecord = group.entries.find((e) => e.parent.kind === 'project');
      if (projectRecord) {
        deleted += await cascade(projectRecord.parent, options);
        skipped += group.entries.length - 1;
        return;
      }
      if (!(await projectExists(group.orgId, group.projectId))) {
        skipped += group.entries.length;
        return;
      }
      const unique = new Map(group.entries.map((e) => [JSON.stringify(e.parent), e.parent]));
      skipped += group.entries.length - unique.size;
      await forEachLimited([...unique.values()], PARALLELISM, async (parent) => {
        deleted += await cascade(parent, options);
      });
    } catch (err) {
      const first = Math.min(...group.entries.map((e) => e.index));
      firstFailedIndex = firstFailedIndex === undefined ? first : Math.min(firstFailedIndex, first);
      if (!(err instanceof CascadeInterrupted)) errors.push(err);
    }
  });

  const failed = firstFailedIndex === undefined ? undefined : records[firstFailedIndex]?.dynamodb?.SequenceNumber;
  return { firstFailure: failed, deleted, parents, skipped, errors };
}

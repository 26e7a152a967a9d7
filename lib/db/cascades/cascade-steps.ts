import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unclassified, type IssueChange, isClosed } from '../../model/derivations.ts';
import { issueStateOf } from '../issues/issue-item.ts';
import { issueWriteItems } from '../issues/issue-write.ts';
import { storedRelations, type RemovedIssue } from '../issues/relations.ts';
import type { IssueStatus } from '../../schemas/issues.ts';
import { queryPages, type QueryInput } from '../core/query.ts';
import { forEachLimited } from '../../model/limited.ts';
import { CascadeInterrupted, checkDeadline, PARALLELISM, type CascadeOptions } from '../../model/cascades.ts';
import { attachmentItem, attachmentRemoval } from '../attachments/attachments.ts';
import { db, tableName } from '../core/client.ts';
import { collections, commentPointerOf, keys, parseProjectPk, projectPk, skPrefixes, type Key } from '../core/keys.ts';
import { batchGet, getItem, Refused, transact, type GuardedItem } from '../core/transactions.ts';

/**
 * The table's side of the cascade of deletes (lib/jobs/cascade.ts) and of the trash's sprints and
 * projects (lib/jobs/container-trash.ts): paging a Query with a deadline, deleting what a page
 * found, and taking a page's issues out of what is kept of them outside their sprint or project.
 */

/** Keys read per Query page: bounds memory, and the BatchWrites of one page run in parallel. */
export const PAGE_SIZE = 250;
/** BatchWriteItem's limit. */
const BATCH_SIZE = 25;
const MAX_UNPROCESSED_RETRIES = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Deletes items by key; a comment's pointer (in the organisation's partition, `keys.commentPointer`)
 * goes first, so that an interrupted page never leaves a pointer whose comment the next Query no
 * longer finds.
 */
export async function deleteKeys(itemKeys: Key[], items: Record<string, unknown>[] = []): Promise<void> {
  const released = await releaseAttachments(items);
  const rest = released.size === 0 ? itemKeys : itemKeys.filter((k) => !released.has(`${k.PK}|${k.SK}`));
  const pointers = rest.map(commentPointerOf).filter((k) => k !== undefined);
  if (pointers.length > 0) await deleteBatches(pointers);
  await deleteBatches(rest);
}

const ATTACHMENT_SK = /^ISSUE#(\d{10})#F#(\d{10})$/;

/**
 * Removes the attachments among a page's items (read with their `size`), one transaction each that
 * also takes their bytes off the organisation's count (lib/db/attachments/attachments.ts), one after the other
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
    let found: Record<string, unknown> | undefined = item;
    // Completed since the page was read (its status is in the condition): read again, removed as it is now.
    for (let attempt = 0; found && attempt < 3; attempt++) {
      const { size, status, uploaderId, reserved } = attachmentItem.decode(found);
      try {
        await transact(
          attachmentRemoval({ ...project, issueId: Number(m[1]), id: Number(m[2]), size, status, uploaderId, reserved }, false),
        );
        break;
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        found = await getItem({ PK: String(item.PK), SK: String(item.SK) });
      }
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
export async function forEachPage(
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
 * with the count (lib/db/issues/assigned.ts). An interrupted page is read again; what was already taken
 * out is refused by its condition and left alone.
 */
export async function unindexIssues(
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
      // Some were taken out already (a page read again; a sprint's or project's purge after its
      // issues were taken out into the trash: all of them), or a number reused. One BatchGetItem
      // finds which are still there; only those go, one by one, each pointer on its own, each
      // entry with its count.
      const pointers = chunk.map((i) => (i.number === undefined ? undefined : keys.issueKey(orgId, i.number)));
      const entries = chunk.map((i) =>
        i.assigneeId === undefined ? undefined : keys.assignedIssue(orgId, i.assigneeId, projectId, i.issueId),
      );
      const wanted = [...pointers, ...entries].filter((k): k is Key => k !== undefined);
      const found = await batchGet(wanted);
      const there = new Set(wanted.filter((_, n) => found[n] !== undefined).map((k) => `${k.PK}|${k.SK}`));
      const has = (k: Key | undefined) => k !== undefined && there.has(`${k.PK}|${k.SK}`);
      const left = chunk.map((issue, n) => ({ issue, pointer: has(pointers[n]), entry: has(entries[n]) }));
      await forEachLimited(
        left.filter((l) => l.pointer || l.entry),
        PARALLELISM,
        async ({ issue: { issueId, number, assigneeId }, pointer, entry }) => {
          if (pointer) await transact(indexDeletes(orgId, projectId, [{ issueId, number }])).catch(ignoreRefused);
          if (entry) await transact(indexDeletes(orgId, projectId, [{ issueId, assigneeId }])).catch(ignoreRefused);
        },
      );
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

/** Issues whose index items one cascade transaction removes (at most 3 items each: 90 of 100). */
const INDEX_CHUNK = 30;

export const ignoreRefused = (err: unknown) => {
  if (!(err instanceof Refused)) throw err;
};

/** What a cascade keeps of the issues it deletes: what lives outside the deleted parent (lib/model/derivations.ts). */
const OUTSIDE = { pointer: ['number-pointer'], assignee: ['assignee-index'] } as const;

/**
 * The number pointers (while they still point to these issues) and assignee entries of `issues`,
 * as transaction items (lib/db/issues/issue-write.ts): their list's counters went with the parent.
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

export const ISSUE_SK = /^ISSUE#\d+$/;

/** The issues among the items a Query of a partition or a list found. */
export const issuesAmong = (items: Record<string, unknown>[]) => items.filter((item) => ISSUE_SK.test(String(item.SK)));

/** The issues among `items` that hold relations, as the relation cleanup takes them (lib/db/issues/relations.ts). */
export const removedIssues = (projectId: number, items: Record<string, unknown>[]): RemovedIssue[] =>
  items
    .filter((item) => ISSUE_SK.test(String(item.SK)) && item.relations !== undefined)
    .map((item) => ({
      projectId,
      issueId: issueIdOf(item as unknown as Key),
      closed: isClosed(item.status as IssueStatus),
      relations: storedRelations(item),
    }));

export function issueIdOf(key: Key): number {
  const m = /^ISSUE#(\d+)$/.exec(key.SK);
  if (!m) throw new Error(`not an issue key: ${key.SK}`);
  return Number(m[1]);
}

/**
 * The Query of a sprint's issues (LSI1, not the keys-only LSI1Keys: each issue's number, assignee,
 * parent, relations, status and points are read too), as a sprint's cascade and its trip through
 * the trash page it.
 */
export function sprintIssuesQuery(orgId: number, projectId: number, sprintId: number): QueryInput {
  const issues = collections.sprintIssues(orgId, projectId, sprintId);
  return {
    IndexName: 'LSI1',
    KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
    ExpressionAttributeValues: { ':pk': issues.pk, ':prefix': issues.prefix },
    ProjectionExpression:
      'PK, SK, LSK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points',
    ExpressionAttributeNames: { '#status': 'status' },
  };
}

/** The Query of a deleted project's whole partition, with what a page's deletes and cleanups read of each item. */
export function projectContentsQuery(orgId: number, projectId: number): QueryInput {
  return {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk },
    ProjectionExpression:
      'PK, SK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points, #size, uploader_id, pending_reserved',
    ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
  };
}

/**
 * The Query of what lies under a deleted issue: comments and activity alike (both are stored under
 * the issue's SK, lib/db/core/keys.ts), and attachments with their sizes (their bytes come off the
 * organisation's count, a pending one's reservation too).
 */
export function issueContentsQuery(orgId: number, projectId: number, issueId: number): QueryInput {
  return {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.underIssue(issueId) },
    ProjectionExpression: 'PK, SK, #size, #status, uploader_id, pending_reserved',
    ExpressionAttributeNames: { '#size': 'size', '#status': 'status' },
  };
}

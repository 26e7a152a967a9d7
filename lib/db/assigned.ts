import { ValidationError } from '../domain/errors.ts';
import type { IssueStatus } from '../schemas/issues.ts';
import { tableName } from './client.ts';
import { collections, keys, listKeys } from './keys.ts';
import { decodeCursor, encodeCursor, type PageRequest } from './list.ts';
import { queryPages } from './query.ts';
import type { GuardedItem } from './transactions.ts';

/**
 * The index of `GET /me/issues`: one small item per assigned issue in the assignee's own partition
 * (`ORG#o#A#a`, lib/db/keys.ts), sorted on LSI1 by the issue's `updated_at`, and a count
 * (`assigned_count`) on the assignee's account item. Every write that changes an issue's assignee,
 * `updated_at`, status or list (create, update, move, delete, sprint completion, and the cascades
 * that delete issues with their project or sprint) writes the index in the same transaction as the
 * issue, so the index is as consistent as the issue itself, and a page of it is one Query.
 */

/** What the index holds of an issue. */
export interface AssignedState {
  assigneeId: number | null;
  updatedAt: string;
  status: IssueStatus;
  sprintId: number | null;
}

/** The stored issue's index state. */
export const assignedStateOf = (issue: {
  assignee_id?: number | null | undefined;
  updated_at: string;
  status: IssueStatus;
  sprint_id?: number | null | undefined;
}): AssignedState => ({
  assigneeId: issue.assignee_id ?? null,
  updatedAt: issue.updated_at,
  status: issue.status,
  sprintId: issue.sprint_id ?? null,
});

const countUpdate = (orgId: number, accountId: number, by: number, reason?: string): GuardedItem => ({
  item: {
    Update: {
      TableName: tableName,
      Key: keys.account(orgId, accountId),
      UpdateExpression: 'ADD assigned_count :by',
      // Gaining an issue proves the account exists (the assignee check); accounts are never deleted.
      ...(by > 0 ? { ConditionExpression: 'attribute_exists(PK)' } : {}),
      ExpressionAttributeValues: { ':by': by },
    },
  },
  reason,
});

/**
 * The index items of one issue write, from its state `before` (undefined: created) to `after`
 * (undefined: deleted): the old assignee's entry removed and count lowered when the assignee
 * changes; the new assignee's entry written (its sort key follows `updated_at`) and, when it is a
 * new assignee, its count raised, conditioned on the account existing (refused as `reason`: this
 * is the assignee check of the write). An unchanged assignee needs its own check from the caller.
 */
export function assignmentItems(
  orgId: number,
  projectId: number,
  issueId: number,
  before: AssignedState | undefined,
  after: AssignedState | undefined,
  reason = 'assignee',
): GuardedItem[] {
  const from = before?.assigneeId ?? null;
  const to = after?.assigneeId ?? null;
  const items: GuardedItem[] = [];
  if (from !== null && from !== to) {
    items.push({ item: { Delete: { TableName: tableName, Key: keys.assignedIssue(orgId, from, projectId, issueId) } } });
    items.push(countUpdate(orgId, from, -1));
  }
  if (after && to !== null) {
    items.push({
      item: {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.assignedIssue(orgId, to, projectId, issueId),
            LSK: listKeys.assignedIssue(after.updatedAt, projectId, issueId),
            type: 'assigned_issue',
            project_id: projectId,
            issue_id: issueId,
            sprint_id: after.sprintId,
            status: after.status,
            updated_at: after.updatedAt,
          },
        },
      },
    });
    if (to !== from) items.push(countUpdate(orgId, to, 1, reason));
  }
  return items;
}

/**
 * The index items of issues the cascade deletes with their project or sprint: their entries
 * removed, each conditioned on still being there (refused as `gone`), with each assignee's count
 * lowered by as many, in one transaction (at most 2 items per issue). A repeated run (a retried
 * cascade) is refused by a condition and changes nothing.
 */
export function unassignOnCascade(
  orgId: number,
  projectId: number,
  issues: { issueId: number; assigneeId: number }[],
): GuardedItem[] {
  const lowered = new Map<number, number>();
  const items: GuardedItem[] = issues.map(({ issueId, assigneeId }) => {
    lowered.set(assigneeId, (lowered.get(assigneeId) ?? 0) + 1);
    return {
      item: {
        Delete: {
          TableName: tableName,
          Key: keys.assignedIssue(orgId, assigneeId, projectId, issueId),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      reason: 'gone',
    };
  });
  for (const [accountId, by] of lowered) items.push(countUpdate(orgId, accountId, -by));
  return items;
}

/** One entry of the index: which issue, and the list it was in when last written. */
export interface AssignedEntry {
  projectId: number;
  issueId: number;
  sprintId: number | null;
  status: IssueStatus;
}

/** Entries a filtered page looks through at most (about 150 bytes each: one Query call). */
export const ASSIGNED_FILTER_SCAN = 1000;

export interface AssignedPage {
  entries: AssignedEntry[];
  nextCursor?: string | undefined;
  /** The cursor that continues right after `entries[index]`. */
  cursorAfter: (index: number) => string;
  /** Filtered pages: matches up to where this request stopped looking (all of them when `complete`). */
  matches?: { count: number; complete: boolean } | undefined;
}

/**
 * Reads the index newest first (LSI1, consistent) after `after`, up to `limit` entries plus one,
 * so whether more follow is known.
 */
async function readEntries(
  pk: string,
  prefix: string,
  after: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const items: Record<string, unknown>[] = [];
  const end = await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ScanIndexForward: false,
    },
    { start: after, limit: () => limit + 1 - items.length },
    (page) => {
      items.push(...page);
      return items.length <= limit;
    },
  );
  return { items: items.slice(0, limit), more: items.length > limit || end !== undefined };
}

const entryOf = (item: Record<string, unknown>): AssignedEntry => ({
  projectId: Number(item.project_id),
  issueId: Number(item.issue_id),
  sprintId: item.sprint_id === null || item.sprint_id === undefined ? null : Number(item.sprint_id),
  status: item.status as IssueStatus,
});

/**
 * A page of the issues assigned to `accountId`, newest update first: the first page or a cursor's
 * is one Query of `perPage` + 1 entries; `page=N` reads the (N-1) x perPage entries before it (each
 * about 150 bytes: 1 MB, one call, holds some 6,000). With `statuses`, the page holds the matches
 * among the next ASSIGNED_FILTER_SCAN entries and is followed by its cursor (`page` > 1 without
 * one is 422), as the filtered issue lists are.
 */
export async function listAssigned(
  orgId: number,
  accountId: number,
  req: PageRequest,
  statuses?: readonly IssueStatus[],
): Promise<AssignedPage> {
  const collection = collections.assignedIssues(orgId, accountId);
  const cursor = req.cursor ? decodeCursor(req.cursor, collection) : undefined;
  const after = cursor ? { PK: cursor.PK, SK: cursor.SK, LSK: cursor.LSK } : undefined;
  const cursorOf = (item: Record<string, unknown>, m?: number) => encodeCursor(item, m === undefined ? {} : { m });

  if (statuses) {
    if (!cursor && req.page > 1) {
      throw new ValidationError(['page cannot be combined with filters: follow the next link of the first page']);
    }
    const read = await readEntries(collection.pk, collection.prefix, after, ASSIGNED_FILTER_SCAN);
    const before = cursor?.m ?? 0;
    const taken: Record<string, unknown>[] = [];
    let extra = 0;
    for (const item of read.items) {
      if (!statuses.includes(item.status as IssueStatus)) continue;
      if (taken.length < req.perPage) taken.push(item);
      else extra += 1;
    }
    const full = taken.length === req.perPage;
    const lastSeen = read.items.at(-1);
    const resume = full ? taken.at(-1) : lastSeen;
    const more = read.more || (full && lastSeen !== resume);
    return {
      entries: taken.map(entryOf),
      nextCursor: more && resume ? cursorOf(resume, before + taken.length) : undefined,
      cursorAfter: (index) => cursorOf(taken[index] as Record<string, unknown>, before + index + 1),
      matches: { count: before + taken.length + extra, complete: !read.more },
    };
  }

  const skip = cursor ? 0 : (req.page - 1) * req.perPage;
  const read = await readEntries(collection.pk, collection.prefix, after, skip + req.perPage);
  const shown = read.items.slice(skip);
  const last = shown.at(-1);
  return {
    entries: shown.map(entryOf),
    nextCursor: read.more && last ? cursorOf(last) : undefined,
    cursorAfter: (index) => cursorOf(shown[index] as Record<string, unknown>),
  };
}

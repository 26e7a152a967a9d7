import { ValidationError } from '../../vocabulary/errors.ts';
import { assignedEntryItem } from './issue-item.ts';
import type { Fields } from '../core/item.ts';
import type { IssueItem } from './issues.ts';
import { collections, keys, type Key } from '../core/keys.ts';
import { decodeCursor, encodeCursor, type PageRequest } from '../core/list.ts';
import { queryPages } from '../core/query.ts';
import { batchGet } from '../core/transactions.ts';

/**
 * The index of `GET /me/issues`: one small item per assigned issue in the assignee's own partition
 * (`ORG#o#A#a`, lib/db/core/keys.ts), sorted on LSI1 by the issue's `updated_at`, and a count
 * (`assigned_count`) on the assignee's account item. It is the `assignee-index` derivation
 * (lib/model/derivations.ts): every write that changes an issue's assignee, `updated_at`, status
 * or list (create, update, move, delete, sprint completion, and the cascades that delete issues
 * with their project or sprint) writes it in the same transaction as the issue
 * (lib/db/issues/issue-write.ts), so the index is as consistent as the issue itself, and a page of it is
 * one Query. This file reads it.
 */

/** One entry of the index: which issue, the list it was in when last written, and what it is filtered on. */
export type AssignedEntry = Omit<Fields<typeof assignedEntryItem.attributes>, 'updatedAt'>;

/** Which entries a filtered page shows. */
export type AssignedFilter = (entry: AssignedEntry) => boolean;

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

const entryOf = (item: Record<string, unknown>): AssignedEntry => {
  const { updatedAt: _, ...entry } = assignedEntryItem.decode(item);
  return entry;
};

/**
 * A page of the issues assigned to `accountId`, newest update first: the first page or a cursor's
 * is one Query of `perPage` + 1 entries; `page=N` reads the (N-1) x perPage entries before it (each
 * about 150 bytes: 1 MB, one call, holds some 6,000). With `filter`, the page holds the matches
 * among the next ASSIGNED_FILTER_SCAN entries and is followed by its cursor (`page` > 1 without
 * one is 422), as the filtered issue lists are.
 */
export async function listAssigned(
  orgId: number,
  accountId: number,
  req: PageRequest,
  filter?: AssignedFilter,
): Promise<AssignedPage> {
  const collection = collections.assignedIssues(orgId, accountId);
  const cursor = req.cursor ? decodeCursor(req.cursor, collection) : undefined;
  const after = cursor ? { PK: cursor.PK, SK: cursor.SK, LSK: cursor.LSK } : undefined;
  const cursorOf = (item: Record<string, unknown>, m?: number) => encodeCursor(item, m === undefined ? {} : { m });

  if (filter) {
    if (!cursor && req.page > 1) {
      throw new ValidationError(['page cannot be combined with filters: follow the next link of the first page']);
    }
    const read = await readEntries(collection.pk, collection.prefix, after, ASSIGNED_FILTER_SCAN);
    const before = cursor?.m ?? 0;
    const taken: Record<string, unknown>[] = [];
    let extra = 0;
    for (const item of read.items) {
      if (!filter(entryOf(item))) continue;
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

/** What `scanAssigned` looked through: the entries (statuses applied) and how to continue. */
export interface AssignedScan {
  /** The entries read that have one of the statuses, newest first, with their stored items (for cursors). */
  entries: { entry: AssignedEntry; item: Record<string, unknown> }[];
  /** The last entry read (whatever its status): where looking stopped. */
  lastRead: Record<string, unknown> | undefined;
  /** The index goes on after `lastRead`. */
  more: boolean;
  /** Matches before this page (carried by the cursor). */
  before: number;
  /** The cursor that continues after `item`, `m` matches counted up to it. */
  cursorOf: (item: Record<string, unknown>, m: number) => string;
}

/**
 * Up to `limit` entries of the index from the page's cursor on, newest first, for a page filtered
 * on what the entries do not hold (labels), keeping those that pass `filter` (what they do hold):
 * the caller reads their issues and decides. Like the other filters, it is followed by its cursor (`page` > 1 without one is 422).
 */
export async function scanAssigned(
  orgId: number,
  accountId: number,
  req: PageRequest,
  limit: number,
  filter?: AssignedFilter,
): Promise<AssignedScan> {
  const collection = collections.assignedIssues(orgId, accountId);
  const cursor = req.cursor ? decodeCursor(req.cursor, collection) : undefined;
  if (!cursor && req.page > 1) {
    throw new ValidationError(['page cannot be combined with filters: follow the next link of the first page']);
  }
  const after = cursor ? { PK: cursor.PK, SK: cursor.SK, LSK: cursor.LSK } : undefined;
  const read = await readEntries(collection.pk, collection.prefix, after, limit);
  return {
    entries: read.items.map((item) => ({ entry: entryOf(item), item })).filter(({ entry }) => !filter || filter(entry)),
    lastRead: read.items.at(-1),
    more: read.more,
    before: cursor?.m ?? 0,
    cursorOf: (item, m) => encodeCursor(item, { m }),
  };
}

/**
 * The items of index entries, in one BatchGet (it reads a key asked for twice once): the account
 * `accountId`, and for each entry, in the order of `entries`, its issue, its project and the list
 * that holds it (its sprint, or the project for the backlog); undefined where one is gone.
 */
export async function readAssignedItems(orgId: number, accountId: number, entries: AssignedEntry[]) {
  const wanted: Key[] = [keys.account(orgId, accountId)];
  const want = (key: Key) => wanted.push(key) - 1;
  const places = entries.map((e) => ({
    issue: want(keys.issue(orgId, e.projectId, e.issueId)),
    project: want(keys.project(orgId, e.projectId)),
    sprint: e.sprintId === null ? undefined : want(keys.sprint(orgId, e.projectId, e.sprintId)),
  }));
  const found = await batchGet(wanted);
  const rows = places.map((at) => {
    const project = found[at.project];
    return {
      issue: found[at.issue] as IssueItem | undefined,
      project,
      owner: at.sprint === undefined ? project : found[at.sprint],
    };
  });
  return { account: found[0], rows };
}

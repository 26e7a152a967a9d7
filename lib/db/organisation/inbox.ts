import { tableName } from '../core/client.ts';
import { collections, keys, listKeys, skPrefixes, type Key } from '../core/keys.ts';
import { attribute, itemKind, type Fields } from '../core/item.ts';
import { encodeCursor, decodeCursor, type PageRequest } from '../core/list.ts';
import { queryPages } from '../core/query.ts';
import { batchGet, existsCheck, isRefused, putNew, transact, type GuardedItem } from '../core/transactions.ts';
import { cancellationCodes } from '../core/errors.ts';
import { ValidationError } from '../../vocabulary/errors.ts';
import { INBOX_FILTER_SCAN, MARK_ALL_LIMIT, NOTIFICATION_DAYS, type NotificationReason } from '../../vocabulary/notifications.ts';

/**
 * Each account's inbox (docs/notifications.md), in the account's own partition: one item per
 * notification, keyed by its issue and the stream record it came from, so that a record worked
 * twice adds nothing; and the inbox item, whose count of unread notifications moves in the same
 * transaction as they do. A notification is listed (it has a list key) while its issue is out of
 * the trash. The accounts notified about an issue are kept beside it, for its trip to the trash.
 */

export const notificationItem = itemKind({
  type: 'notification',
  key: { ...keys.notification.placement, LSK: listKeys.notification.placement },
  about: 'notification',
  attributes: {
    accountId: attribute.number('account_id'),
    reason: attribute.oneOf<NotificationReason, 'reason'>('reason'),
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    issueKey: attribute.string('issue_key'),
    title: attribute.string('title'),
    actorId: attribute.nullableNumber('actor_id'),
    /** The stream record's sequence number: the activity entry's id. */
    sequence: attribute.string('sequence'),
    commentId: attribute.nullableNumber('comment_id'),
    createdAt: attribute.string('created_at'),
    readAt: attribute.nullableString('read_at'),
    /** Its issue is in the trash: not listed, not counted. */
    hidden: attribute.flag('hidden'),
    expiresAt: attribute.expiry(),
  },
});
export type StoredNotification = Fields<typeof notificationItem.attributes>;

export const inboxItem = itemKind({
  key: keys.inbox.placement,
  about: "an account's count of unread notifications, and of the queries it follows",
  attributes: { unread: attribute.counter('unread'), follows: attribute.counter('follows') },
});

export const notifiedItem = itemKind({
  key: keys.notified.placement,
  about: 'the accounts notified about an issue',
  attributes: { accountIds: attribute.numberSet('account_ids'), expiresAt: attribute.expiry() },
});

/** A notification to write: to whom, why, and about what. */
export interface NewNotification {
  accountId: number;
  reason: NotificationReason;
}

/** What every notification of one change carries. */
export interface NotifiedChange {
  orgId: number;
  projectId: number;
  issueId: number;
  issueKey: string;
  title: string;
  actorId: number | null;
  sequence: string;
  commentId: number | null;
  at: string;
}

const DAY_SECONDS = 86_400;
const expiryOf = (at: string) => Math.floor(Date.parse(at) / 1000) + NOTIFICATION_DAYS * DAY_SECONDS;
/** Recipients per transaction: two items each, beside the issue's check and its record of who was notified. */
const RECIPIENTS_AT_ONCE = 49;

const inboxChange = (orgId: number, accountId: number, by: number): GuardedItem =>
  inboxItem.updateAt(keys.inbox(orgId, accountId), { add: { unread: by } });

function notificationPut(change: NotifiedChange, note: NewNotification): GuardedItem {
  const { orgId, projectId, issueId, sequence, at } = change;
  return putNew(
    {
      ...keys.notification(orgId, note.accountId, projectId, issueId, sequence),
      LSK: listKeys.notification(Date.parse(at), sequence),
      type: notificationItem.type,
      org_id: orgId,
      ...notificationItem.encode({
        accountId: note.accountId,
        reason: note.reason,
        projectId,
        issueId,
        issueKey: change.issueKey,
        title: change.title,
        actorId: change.actorId,
        sequence,
        commentId: change.commentId,
        createdAt: at,
        readAt: null,
        expiresAt: expiryOf(at),
      }),
    },
    'notified',
  );
}

const notifiedChange = (change: NotifiedChange, accountIds: number[]): GuardedItem =>
  notifiedItem.updateAt(keys.notified(change.orgId, change.projectId, change.issueId), {
    add: { accountIds: new Set(accountIds) },
    set: { expiresAt: expiryOf(change.at) },
  });

/**
 * Writes the notifications of one change, each with its account's unread count, in transactions
 * of up to 49 recipients. A recipient already notified of this change (its stream record worked
 * again) refuses its transaction: its recipients are then written one by one, and those already
 * there skipped. Answers how many were written.
 */
export async function deliverNotifications(change: NotifiedChange, notes: NewNotification[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < notes.length; i += RECIPIENTS_AT_ONCE) {
    const chunk = notes.slice(i, i + RECIPIENTS_AT_ONCE);
    written += await deliverChunk(change, chunk);
  }
  return written;
}

async function deliverChunk(change: NotifiedChange, chunk: NewNotification[]): Promise<number> {
  const items = [
    // Nothing is written about an issue gone meanwhile (into the trash, or for good).
    existsCheck(keys.issue(change.orgId, change.projectId, change.issueId), 'gone'),
    ...chunk.flatMap((note) => [notificationPut(change, note), inboxChange(change.orgId, note.accountId, 1)]),
    notifiedChange(
      change,
      chunk.map((n) => n.accountId),
    ),
  ];
  try {
    await transact(items);
    return chunk.length;
  } catch (err) {
    if (isRefused(err, 'gone')) return 0;
    if (!isRefused(err, 'notified')) throw err;
  }
  // Some were notified before (a record worked again): one by one, the rest.
  if (chunk.length === 1) return 0;
  let written = 0;
  for (const note of chunk) written += await deliverChunk(change, [note]);
  return written;
}

/** A notification's id in answers: its project, issue and stream record. */
export const notificationId = (n: { projectId: number; issueId: number; sequence: string }) =>
  `${n.projectId}-${n.issueId}-${n.sequence}`;

/** The key of a notification's id, or undefined for anything that is none. */
function keyOfId(orgId: number, accountId: number, id: string): Key | undefined {
  const parts = /^(\d{1,10})-(\d{1,10})-(\d{1,40})$/.exec(id);
  if (!parts) return undefined;
  return keys.notification(orgId, accountId, Number(parts[1]), Number(parts[2]), parts[3]!);
}

/** Which of an inbox's notifications a page shows. */
export interface InboxFilter {
  unread?: boolean | undefined;
  reasons?: NotificationReason[] | undefined;
}

export interface InboxPage {
  items: StoredNotification[];
  /** Where the next page starts, while more may remain. */
  nextCursor?: string | undefined;
  cursorAfter: (index: number) => string;
  /** Notifications shown up to this page's end (the pages before included). */
  shown: number;
}

/**
 * A page of an account's inbox, newest first: one consistent Query of the listed notifications
 * (those of issues in the trash are not listed). Filtered, a page looks through at most
 * INBOX_FILTER_SCAN of them from where the last stopped, and its cursor goes on from there.
 */
export async function inboxPage(orgId: number, accountId: number, req: PageRequest, filter: InboxFilter): Promise<InboxPage> {
  const collection = collections.inbox(orgId, accountId);
  if (req.page > 1 && !req.cursor) throw new ValidationError(['page: a page after the first is reached by its `next` link']);
  const cursor = req.cursor ? decodeCursor(req.cursor, collection) : undefined;
  const conditions = [
    filter.unread ? 'attribute_not_exists(#readAt) OR #readAt = :null' : undefined,
    filter.reasons?.length ? `#reason IN (${filter.reasons.map((_, i) => `:r${i}`).join(', ')})` : undefined,
  ].filter((c): c is string => c !== undefined);
  const items: Record<string, unknown>[] = [];
  let looked = 0;
  let asked = 0;
  let stoppedAt: Record<string, unknown> | undefined;
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ...(conditions.length > 0 && { FilterExpression: conditions.map((c) => `(${c})`).join(' AND ') }),
      ExpressionAttributeValues: {
        ':pk': collection.pk,
        ':prefix': collection.prefix,
        ...(filter.unread && { ':null': null }),
        ...Object.fromEntries((filter.reasons ?? []).map((r, i) => [`:r${i}`, r])),
      },
      ...(conditions.length > 0 && {
        ExpressionAttributeNames: {
          ...(filter.unread && { '#readAt': notificationItem.stored('readAt') }),
          ...(filter.reasons?.length && { '#reason': notificationItem.stored('reason') }),
        },
      }),
    },
    {
      start: cursor && { PK: cursor.PK, SK: cursor.SK, LSK: cursor.LSK },
      // Filtered: what is left of the look in one Query (its 1 MB page holds some thousands).
      limit: () => (asked = conditions.length > 0 ? INBOX_FILTER_SCAN - looked : req.perPage + 1 - items.length),
    },
    (page, _count, next) => {
      items.push(...page);
      looked += asked;
      stoppedAt = next;
      return items.length <= req.perPage && (conditions.length === 0 || looked < INBOX_FILTER_SCAN);
    },
  );
  const before = cursor?.m ?? 0;
  const shown = items.slice(0, req.perPage);
  const cursorAfter = (index: number) => encodeCursor(shown[index] ?? {}, { m: before + index + 1 });
  const last = shown.at(-1);
  const nextCursor =
    items.length > req.perPage && last
      ? cursorAfter(shown.length - 1)
      : stoppedAt
        ? encodeCursor(stoppedAt, { m: before + shown.length })
        : undefined;
  return { items: shown.map(notificationItem.decode), nextCursor, cursorAfter, shown: before + shown.length };
}

/** The unread count of an inbox item (read with the account by `GET /me`); none: 0. */
export const unreadOf = (item: object | undefined) => Math.max(0, item ? inboxItem.field(item, 'unread') : 0);

/** Read: a listed notification not read before, which takes its place in the count with it. */
const readChange = (key: Key, at: string): GuardedItem =>
  notificationItem.updateAt(key, { set: { readAt: at }, if: { exists: true, absent: ['hidden'] } }, 'read', {
    ConditionExpression: '(attribute_not_exists(#readAt) OR #readAt = :none)',
    ExpressionAttributeValues: { ':none': null },
  });

/** Tries of a mark whose transaction meets another mark of the same inbox. */
const MARK_ATTEMPTS = 8;

/** Marks notifications read; answers how many were unread (each moves the count once, whoever marks it). */
export async function markRead(orgId: number, accountId: number, ids: string[], at: string): Promise<number> {
  const wanted = [...new Set(ids)].flatMap((id) => keyOfId(orgId, accountId, id) ?? []);
  return markKeys(orgId, accountId, wanted, at);
}

async function markKeys(orgId: number, accountId: number, wanted: Key[], at: string): Promise<number> {
  let marked = 0;
  for (let i = 0; i < wanted.length; i += 99) marked += await markChunk(orgId, accountId, wanted.slice(i, i + 99), at);
  return marked;
}

async function markChunk(orgId: number, accountId: number, chunk: Key[], at: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transact([...chunk.map((key) => readChange(key, at)), inboxChange(orgId, accountId, -chunk.length)]);
      return chunk.length;
    } catch (err) {
      if (isRefused(err, 'read')) break;
      // Marks of the same inbox at once meet on its count: again, a little later.
      if (!cancellationCodes(err)?.includes('TransactionConflict') || attempt >= MARK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt * (0.5 + Math.random())));
    }
  }
  // Some were read already, hidden, or not there: one by one, the others.
  if (chunk.length === 1) return 0;
  let marked = 0;
  for (const key of chunk) marked += await markChunk(orgId, accountId, [key], at);
  return marked;
}

/**
 * Marks every listed unread notification read, at most MARK_ALL_LIMIT of them: answers how many,
 * and whether more remain.
 */
export async function markAllRead(orgId: number, accountId: number, at: string): Promise<{ marked: number; more: boolean }> {
  const found: Key[] = [];
  const collection = collections.inbox(orgId, accountId);
  const next = await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: 'attribute_not_exists(#readAt) OR #readAt = :null',
      ExpressionAttributeNames: { '#readAt': notificationItem.stored('readAt') },
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix, ':null': null },
      ProjectionExpression: 'PK, SK',
    },
    { limit: () => MARK_ALL_LIMIT - found.length },
    (page) => {
      found.push(...page.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
      return found.length < MARK_ALL_LIMIT;
    },
  );
  return { marked: await markKeys(orgId, accountId, found, at), more: next !== undefined };
}

/** The accounts notified about each issue (none: an empty list), in one BatchGetItem. */
export async function notifiedAccounts(orgId: number, issues: { projectId: number; issueId: number }[]): Promise<number[][]> {
  const found = await batchGet(issues.map((i) => keys.notified(orgId, i.projectId, i.issueId)));
  return found.map((item) => (item ? notifiedItem.field(item, 'accountIds') : []));
}

/**
 * Hides an issue's notifications while it is in the trash (`hidden`), or shows them again on its
 * restore, in the inboxes of `accountIds` (those notified about it): each leaves (or takes back)
 * its place in the list and, unread, in the count. Written on condition, so a stream record worked
 * again moves nothing twice.
 */
export async function setIssueNotificationsHidden(
  orgId: number,
  issue: { projectId: number; issueId: number },
  accountIds: number[],
  hidden: boolean,
) {
  await Promise.all(accountIds.map((accountId) => setHiddenIn(orgId, accountId, issue.projectId, issue.issueId, hidden)));
}

/**
 * The notifications of issues in a page of a sprint's or project's issues, hidden as the container goes
 * to the trash, or shown as it comes back (lib/jobs/container-trash.ts): one BatchGetItem of who
 * was notified about them, then each inbox's as `setIssueNotificationsHidden` moves them.
 */
export async function setNotificationsHiddenOf(orgId: number, issues: { projectId: number; issueId: number }[], hidden: boolean) {
  const notified = await notifiedAccounts(orgId, issues);
  await Promise.all(issues.map((issue, i) => setIssueNotificationsHidden(orgId, issue, notified[i]!, hidden)));
}

/**
 * Deletes an issue's notifications for good (its purge, or the cascade of its sprint's or
 * project's), in the inboxes of `accountIds`, and the record of who was notified: an unread, listed
 * one gives its place in the count back in the same transaction. Each delete is conditional: worked
 * again, it moves nothing twice.
 */
export async function deleteIssueNotifications(
  orgId: number,
  issue: { projectId: number; issueId: number },
  accountIds: number[],
): Promise<void> {
  await Promise.all(accountIds.map((accountId) => deleteIn(orgId, accountId, issue.projectId, issue.issueId)));
  await transact([{ item: { Delete: { TableName: tableName(), Key: keys.notified(orgId, issue.projectId, issue.issueId) } } }]);
}

async function deleteIn(orgId: number, accountId: number, projectId: number, issueId: number) {
  for (const item of await notesAbout(orgId, accountId, projectId, issueId)) {
    const note = notificationItem.decode(item);
    const key = { PK: String(item.PK), SK: String(item.SK) };
    const counted = note.readAt === null && !note.hidden;
    const gone: GuardedItem = {
      item: { Delete: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(PK)' } },
      reason: 'moved',
    };
    try {
      await transact(counted ? [gone, inboxChange(orgId, accountId, -1)] : [gone]);
    } catch (err) {
      if (!isRefused(err, 'moved')) throw err;
    }
  }
}

/** An account's notifications about one issue (consistent). */
async function notesAbout(orgId: number, accountId: number, projectId: number, issueId: number) {
  const notes: Record<string, unknown>[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.inbox(orgId, accountId).PK,
        ':prefix': skPrefixes.issueNotifications(projectId, issueId),
      },
    },
    {},
    (page) => void notes.push(...page),
  );
  return notes;
}

async function setHiddenIn(orgId: number, accountId: number, projectId: number, issueId: number, hidden: boolean) {
  const notes = await notesAbout(orgId, accountId, projectId, issueId);
  for (const item of notes) {
    const note = notificationItem.decode(item);
    if (note.hidden === hidden) continue;
    const key = { PK: String(item.PK), SK: String(item.SK) };
    const unread = note.readAt === null ? 1 : 0;
    const move = hidden
      ? notificationItem.updateAt(key, { set: { hidden: true }, if: { absent: ['hidden'], exists: true } }, 'moved', {
          ConditionExpression: 'attribute_exists(LSK)',
        })
      : notificationItem.updateAt(key, { set: { hidden: false }, if: { exists: true } }, 'moved', {
          ConditionExpression: 'attribute_exists(#hidden)',
          ExpressionAttributeNames: { '#hidden': notificationItem.stored('hidden') },
        });
    const listed = hidden
      ? { ...move.item.Update, UpdateExpression: `${move.item.Update.UpdateExpression} REMOVE LSK` }
      : withListKey(move.item.Update, listKeys.notification(Date.parse(note.createdAt), note.sequence));
    const items: GuardedItem[] = [{ item: { Update: listed }, reason: 'moved' }];
    if (unread) items.push(inboxChange(orgId, accountId, hidden ? -1 : 1));
    try {
      await transact(items);
    } catch (err) {
      if (!isRefused(err, 'moved')) throw err;
    }
  }
}

/** An update that also sets the list key. */
function withListKey<U extends { UpdateExpression: string; ExpressionAttributeValues?: Record<string, unknown> }>(
  update: U,
  lsk: string,
): U {
  const [head, ...rest] = update.UpdateExpression.split(' REMOVE ');
  const set = head!.startsWith('SET ') ? `${head}, LSK = :lsk` : `SET LSK = :lsk ${head}`;
  return {
    ...update,
    UpdateExpression: [set, ...rest].join(' REMOVE '),
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':lsk': lsk },
  };
}

export const expiredNotificationItem = itemKind({
  type: 'expired_notification',
  key: keys.expiredNotification.placement,
  about: 'an expired notification whose place in the unread count was given back',
  attributes: { expiresAt: attribute.expiry() },
});

/**
 * An unread, listed notification that its TTL removed (`old`, its last image): its place in its
 * inbox's unread count given back, once (a mark of the removal, kept a day, refuses a second).
 * Answers whether it was one.
 */
export async function settleExpiredNotification(old: Record<string, unknown>): Promise<boolean> {
  const orgId = typeof old.org_id === 'number' ? old.org_id : undefined;
  if (old.type !== notificationItem.type || orgId === undefined) return false;
  const note = notificationItem.decode(old);
  if (note.readAt !== null || note.hidden) return true;
  const mark = keys.expiredNotification(orgId, note.accountId, note.projectId, note.issueId, note.sequence);
  try {
    await transact([
      putNew(
        {
          ...mark,
          type: expiredNotificationItem.type,
          ...expiredNotificationItem.encode({ expiresAt: Math.floor(Date.now() / 1000) + DAY_SECONDS }),
        },
        'notified',
      ),
      inboxChange(orgId, note.accountId, -1),
    ]);
  } catch (err) {
    if (!isRefused(err, 'notified')) throw err;
  }
  return true;
}

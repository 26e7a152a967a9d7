import { tableName } from '../core/client.ts';
import { collections, keys, listKeys, skPrefixes, type Key } from '../core/keys.ts';
import { attribute, itemKind, type Fields } from '../core/item.ts';
import { encodeCursor, decodeCursor, type PageRequest } from '../core/list.ts';
import { queryPages } from '../core/query.ts';
import { batchGet, existsCheck, isRefused, putNew, transact, type GuardedItem } from '../core/transactions.ts';
import { cancellationCodes } from '../core/errors.ts';
import { ValidationError } from '../../vocabulary/errors.ts';
import { INBOX_FILTER_SCAN, NOTIFICATION_DAYS, type NotificationReason } from '../../vocabulary/notifications.ts';

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
export const RECIPIENTS_AT_ONCE = 49;

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

/** What a write of one change's notifications to some recipients came to. */
export type DeliveryOutcome = 'written' | 'notified' | 'gone';

/**
 * Writes one change's notifications to `notes`' recipients (up to RECIPIENTS_AT_ONCE) in one
 * transaction, each with its account's unread count, on condition that the issue is there and
 * that none of them was notified of this change before (its stream record worked again):
 * `notified` or `gone` when refused, nothing written.
 */
export async function writeNotifications(change: NotifiedChange, notes: NewNotification[]): Promise<DeliveryOutcome> {
  try {
    await transact([
      // Nothing is written about an issue gone meanwhile (into the trash, or for good).
      existsCheck(keys.issue(change.orgId, change.projectId, change.issueId), 'gone'),
      ...notes.flatMap((note) => [notificationPut(change, note), inboxChange(change.orgId, note.accountId, 1)]),
      notifiedChange(
        change,
        notes.map((n) => n.accountId),
      ),
    ]);
    return 'written';
  } catch (err) {
    if (isRefused(err, 'gone', 'notified')) return err.reason;
    throw err;
  }
}

/** A notification's id in answers: its project, issue and stream record. */
export const notificationId = (n: { projectId: number; issueId: number; sequence: string }) =>
  `${n.projectId}-${n.issueId}-${n.sequence}`;

/** The key of a notification's id, or undefined for anything that is none. */
export function keyOfId(orgId: number, accountId: number, id: string): Key | undefined {
  const parts = /^(\d{1,10})-(\d{1,10})-(\d{1,40})$/.exec(id);
  if (!parts) return undefined;
  return keys.notification(orgId, accountId, Number(parts[1]), Number(parts[2]), parts[3]!);
}

/** A notification not read yet: it has no `read_at` (a filter's condition, `#readAt` its stored name). */
const UNREAD = 'attribute_not_exists(#readAt)';

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
    filter.unread ? UNREAD : undefined,
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
  notificationItem.updateAt(key, { set: { readAt: at }, if: { exists: true, absent: ['readAt', 'hidden'] } }, 'read');

/** Where a notification is stored (a key of keys.notification). */
export type NoteKey = Key;

/** What a mark of some notifications came to: all marked, or refused (one was read, hidden or not there), or met another mark. */
export type MarkOutcome = 'marked' | 'read' | 'conflict';

/** Marks `notes` (up to 99) read in one transaction, the inbox's count with them, on condition that each was unread. */
export async function markNotesRead(orgId: number, accountId: number, notes: Key[], at: string): Promise<MarkOutcome> {
  try {
    await transact([...notes.map((key) => readChange(key, at)), inboxChange(orgId, accountId, -notes.length)]);
    return 'marked';
  } catch (err) {
    if (isRefused(err, 'read')) return 'read';
    // Marks of the same inbox at once meet on its count.
    if (cancellationCodes(err)?.includes('TransactionConflict')) return 'conflict';
    throw err;
  }
}

/** The keys of an inbox's listed unread notifications, at most `limit`, and whether more remain. */
export async function unreadNotes(orgId: number, accountId: number, limit: number): Promise<{ notes: Key[]; more: boolean }> {
  const notes: Key[] = [];
  const collection = collections.inbox(orgId, accountId);
  const next = await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: UNREAD,
      ExpressionAttributeNames: { '#readAt': notificationItem.stored('readAt') },
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
      ProjectionExpression: 'PK, SK',
    },
    { limit: () => limit - notes.length },
    (page) => {
      notes.push(...page.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
      return notes.length < limit;
    },
  );
  return { notes, more: next !== undefined };
}

/** The accounts notified about each issue (none: an empty list), in one BatchGetItem. */
export async function notifiedAccounts(orgId: number, issues: { projectId: number; issueId: number }[]): Promise<number[][]> {
  const found = await batchGet(issues.map((i) => keys.notified(orgId, i.projectId, i.issueId)));
  return found.map((item) => (item ? notifiedItem.field(item, 'accountIds') : []));
}

/** An account's notifications about one issue, as stored (consistent). */
export async function notesAbout(orgId: number, accountId: number, issue: { projectId: number; issueId: number }) {
  const notes: Record<string, unknown>[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.inbox(orgId, accountId).PK,
        ':prefix': skPrefixes.issueNotifications(issue.projectId, issue.issueId),
      },
    },
    {},
    (page) => void notes.push(...page),
  );
  return notes;
}

/**
 * A stored notification hidden (its issue in the trash: out of the list, and, unread, out of the
 * count) or shown again, in one transaction, on condition that it is not so already: worked again,
 * it moves nothing twice.
 */
export async function moveNote(orgId: number, accountId: number, item: Record<string, unknown>, hidden: boolean) {
  const note = notificationItem.decode(item);
  if (note.hidden === hidden) return;
  const key = { PK: String(item.PK), SK: String(item.SK) };
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
  if (note.readAt === null) items.push(inboxChange(orgId, accountId, hidden ? -1 : 1));
  await transact(items).catch(unlessMoved);
}

/** A stored notification deleted for good; an unread, listed one gives its place in the count back with it. */
export async function deleteNote(orgId: number, accountId: number, item: Record<string, unknown>) {
  const note = notificationItem.decode(item);
  const gone: GuardedItem = {
    item: {
      Delete: { TableName: tableName(), Key: { PK: item.PK, SK: item.SK }, ConditionExpression: 'attribute_exists(PK)' },
    },
    reason: 'moved',
  };
  const counted = note.readAt === null && !note.hidden;
  await transact(counted ? [gone, inboxChange(orgId, accountId, -1)] : [gone]).catch(unlessMoved);
}

/** The record of who was notified about an issue, deleted (its notifications are gone). */
export async function forgetNotified(orgId: number, issue: { projectId: number; issueId: number }) {
  await transact([{ item: { Delete: { TableName: tableName(), Key: keys.notified(orgId, issue.projectId, issue.issueId) } } }]);
}

/** A move or a delete refused because it was made already: nothing to do. */
const unlessMoved = (err: unknown) => {
  if (!isRefused(err, 'moved')) throw err;
};

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

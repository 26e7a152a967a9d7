import { inboxPage } from '../db/organisation/inbox.ts';
import { markAllRead, markRead } from '../jobs/inbox-writes.ts';
import { toNotification } from '../resources/notifications.ts';
import { setWatching } from '../db/issues/issue-refs.ts';
import type { PageRequest } from '../db/core/list.ts';
import type { NotificationRefusal } from '../db/core/refusals.ts';
import type { Principal } from '../model/principal.ts';
import type { InboxQuery, MarkReadBody, Subscription } from '../schemas/notifications.ts';
import { deleteFollow, follows, insertFollow, type Follow } from '../db/organisation/follows.ts';
import { readWebhookFilter } from '../model/webhook-filters.ts';
import { printSelection } from '../model/selection.ts';
import { MAX_FOLLOWS, MAX_WATCHERS, type NotificationReason } from '../vocabulary/notifications.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import { placeOfKey } from './issue-keys.ts';
import { refusedAs, type Meanings } from './refusals.ts';

/**
 * The caller's inbox and the issues it watches (docs/notifications.md). Notifications are written
 * by the change feed (lib/feed/notify.ts), never here: a request reads and marks them.
 */

/** A page of the caller's notifications, newest first, filtered by `unread` and `reason`. */
export async function listNotifications(caller: Principal, page: PageRequest, query: InboxQuery) {
  const reasons = query.reason ? [...new Set(query.reason.split(','))] : undefined;
  const filter = { unread: query.unread === 'true', reasons: reasons as NotificationReason[] | undefined };
  const found = await inboxPage(caller.orgId, caller.accountId, page, filter);
  return {
    page: { items: found.items, nextCursor: found.nextCursor, cursorAfter: found.cursorAfter },
    items: found.items.map(toNotification),
    total: found.shown,
  };
}

/** Marks the caller's notifications read (by id, or all): how many were unread, and whether more remain. */
export async function markNotificationsRead(caller: Principal, body: MarkReadBody): Promise<{ marked: number; more: boolean }> {
  const at = new Date().toISOString();
  if ((body.all === true) === (body.notifications !== undefined))
    throw new ValidationError(['body: give either notifications (their ids) or all: true']);
  if (body.all) return markAllRead(caller.orgId, caller.accountId, at);
  if ((body.notifications?.length ?? 0) > 100) throw new ValidationError(['notifications: at most 100 at once']);
  return { marked: await markRead(caller.orgId, caller.accountId, body.notifications ?? [], at), more: false };
}

const watchRefusals = {
  issue: () => new NotFoundError('Issue'),
  watchers_limit: () => new ValidationError([`watchers: an issue is watched by at most ${MAX_WATCHERS} accounts`]),
} satisfies Meanings<Extract<NotificationRefusal, 'issue' | 'watchers_limit'>>;

/** The caller watches the issue of `key` from now on (`watching`), or no longer: answers its watchers. */
export async function watchIssue(caller: Principal, key: string, watching: boolean) {
  const place = await placeOfKey(caller, key);
  const ids = await refusedAs(watchRefusals, () =>
    setWatching(caller.orgId, place.at.projectId, place.issueId, caller.accountId, watching),
  );
  return { count: ids.length, account_ids: ids };
}

const toSubscription = (f: Follow): Subscription => ({ id: f.id, query: f.query, created_at: f.createdAt });

const followRefusals = {
  limit: () => new ValidationError([`subscription: an account follows at most ${MAX_FOLLOWS} queries`]),
} satisfies Meanings<'limit'>;

/** The caller follows a query: 422 where the grammar (docs/search.md) cannot read it, or with `sort:`. */
export async function followQuery(caller: Principal, query: string): Promise<Subscription> {
  const selection = readWebhookFilter(query, caller.accountId, 'query');
  if (!selection) throw new ValidationError(['query: must hold at least one condition']);
  const stored = await refusedAs(followRefusals, () =>
    insertFollow(caller.orgId, caller.accountId, { query: printSelection(selection), selection }),
  );
  return toSubscription(stored);
}

/** The queries the caller follows, oldest first (at most MAX_FOLLOWS). */
export async function listFollowed(caller: Principal): Promise<Subscription[]> {
  return (await follows(caller.orgId, caller.accountId)).map(toSubscription);
}

/** The caller stops following a query; 404 for one it does not follow. */
export async function unfollowQuery(caller: Principal, id: number): Promise<void> {
  if (!(await deleteFollow(caller.orgId, caller.accountId, id))) throw new NotFoundError('Subscription');
}

/**
 * Why an account is told of a change (docs/notifications.md), in the order one wins over another
 * when a change concerns an account for several reasons: a change makes at most one notification
 * per account, with the first reason that holds.
 */
export const notificationReasons = ['assigned', 'mentioned', 'state_changed', 'commented', 'subscribed_query'] as const;
export type NotificationReason = (typeof notificationReasons)[number];

/** How long a notification is kept (its TTL), read or not. */
export const NOTIFICATION_DAYS = 90;

/** The most accounts that watch one issue by asking to (`PUT /issues/{key}/watch`). */
export const MAX_WATCHERS = 500;

/** The most notifications one `POST /me/notifications/read` with `all` marks; it says when more remain. */
export const MARK_ALL_LIMIT = 1000;

/** The most notifications a page of the inbox looks through when it is filtered. */
export const INBOX_FILTER_SCAN = 1000;

/** The most queries one account follows (`POST /me/subscriptions`). */
export const MAX_FOLLOWS = 20;

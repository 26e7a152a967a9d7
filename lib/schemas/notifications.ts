import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, dateTime, wrapped } from './common.ts';
import { selectionLimits } from '../vocabulary/selection.ts';
import { MARK_ALL_LIMIT, notificationReasons } from '../vocabulary/notifications.ts';

export { notificationReasons };

const id = () => z.number().check(z.int());

/** Who watches an issue: shown on every issue answer, and answered by `PUT`/`DELETE …/watch`. */
export const IssueWatchers = meta(
  z.object({
    count: meta(id(), { description: 'How many accounts watch the issue.' }),
    account_ids: meta(z.array(id()), {
      description: 'The accounts watching the issue, ascending: its reporter, assignees and commenters, and who asked to.',
    }),
  }),
  { id: 'IssueWatchers' },
);

export const NotificationReason = meta(z.enum(notificationReasons), {
  description:
    'Why the account is told: `assigned` the issue, `mentioned` (`@handle`) in its description or a comment, its state changed ' +
    '(`state_changed`) or it was commented on (`commented`) while the account watches it, or it matches a followed query (`subscribed_query`).',
});

export const Notification = meta(
  z.object({
    id: meta(z.string(), {
      description: 'Names the notification in `POST /me/notifications/read`.',
      example: '3-17-4960000000000012345',
    }),
    reason: NotificationReason,
    issue: meta(
      z.object({
        key: meta(z.string(), { example: 'APL-12' }),
        title: z.string(),
        project_id: id(),
        issue_id: id(),
      }),
      { description: 'The issue the notification is about, as it was when the change was made.' },
    ),
    actor_id: meta(z.nullable(id()), { description: 'Who made the change.' }),
    activity_id: meta(z.string(), { description: "The change's entry in the issue's activity (`GET …/activity`)." }),
    comment_id: meta(z.nullable(id()), { description: 'The comment, for `commented` and a mention in a comment.' }),
    created_at: dateTime(),
    read_at: meta(z.nullable(dateTime()), { description: 'When it was marked read; null while unread.' }),
  }),
  { id: 'Notification' },
);
export type Notification = z.infer<typeof Notification>;

export const InboxQuery = z.object({
  unread: z.optional(meta(z.enum(['true', 'false']), { description: '`true`: only the notifications not read yet.' })),
  reason: z.optional(
    meta(
      z.string().check(
        z.regex(new RegExp(`^(${notificationReasons.join('|')})(,(${notificationReasons.join('|')}))*$`), {
          error: `must be one or more of ${notificationReasons.join(', ')}, separated by commas`,
        }),
      ),
      { description: 'Only these reasons (comma-separated).' },
    ),
  ),
});
export type InboxQuery = z.infer<typeof InboxQuery>;

export const MarkReadBody = closed(
  meta(
    z.object({
      notifications: z.optional(
        meta(z.array(z.string().check(z.maxLength(64))).check(z.minLength(1), z.maxLength(100)), {
          description: 'The ids of the notifications to mark read (1 to 100).',
        }),
      ),
      all: z.optional(meta(z.literal(true), { description: `Every unread notification (at most ${MARK_ALL_LIMIT} at once).` })),
    }),
    { id: 'MarkNotificationsRead', description: 'Either `notifications` or `all`.' },
  ),
);
export type MarkReadBody = z.infer<typeof MarkReadBody>;

export const MarkReadResult = meta(
  z.object({
    marked: meta(id(), { description: 'How many of them were unread and are read now.' }),
    more: meta(z.boolean(), { description: 'With `all`: unread notifications remain (mark again).' }),
  }),
  { id: 'MarkNotificationsReadResult' },
);

export const Subscription = meta(
  z.object({
    id: id(),
    query: meta(z.string(), {
      description: 'The query followed, canonical (docs/search.md), with `@me` as the account it stands for.',
      example: 'label:security is:open',
    }),
    created_at: dateTime(),
  }),
  { id: 'Subscription' },
);
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionCreateFields = z.object(
  {
    query: meta(
      z
        .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
        .check(z.maxLength(selectionLimits.characters)),
      {
        description: 'A query in the search grammar (docs/search.md), without `sort:`.',
        example: 'assignee:@me status:"In review"',
      },
    ),
  },
  { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
);
export const SubscriptionCreateBody = wrapped('subscription', SubscriptionCreateFields, Subscription);
export const SubscriptionList = meta(z.array(Subscription), { id: 'SubscriptionList' });

import { notificationReasons, type NotificationReason } from '../vocabulary/notifications.ts';

/**
 * Who a change concerns, and why (docs/notifications.md). Pure: the change feed gathers the facts
 * (lib/feed/notify.ts), this decides. One notification per account and change, with the reason
 * that comes first in `notificationReasons`; never the account that made the change.
 */
export interface Concern {
  /** Who made the change (null: nobody, such as a cascade). */
  actorId: number | null;
  /** The account the change assigned the issue to. */
  assigned?: number | null | undefined;
  /** Accounts the change newly mentions. */
  mentioned?: readonly number[] | undefined;
  /** The state changed: its watchers are told. */
  stateChanged?: boolean | undefined;
  /** A comment was added: the watchers are told. */
  commented?: boolean | undefined;
  /** The accounts watching the issue. */
  watchers?: readonly number[] | undefined;
  /** Accounts whose followed query the change concerns. */
  subscribers?: readonly number[] | undefined;
}

export interface Recipient {
  accountId: number;
  reason: NotificationReason;
}

/** The accounts a change concerns, each once, with its first reason, in the order of reasons. */
export function recipientsOf(concern: Concern): Recipient[] {
  const watchers = concern.watchers ?? [];
  const candidates: Record<NotificationReason, readonly number[]> = {
    assigned: concern.assigned === null || concern.assigned === undefined ? [] : [concern.assigned],
    mentioned: concern.mentioned ?? [],
    state_changed: concern.stateChanged ? watchers : [],
    commented: concern.commented ? watchers : [],
    subscribed_query: concern.subscribers ?? [],
  };
  const told = new Set<number>(concern.actorId === null ? [] : [concern.actorId]);
  const recipients: Recipient[] = [];
  for (const reason of notificationReasons) {
    for (const accountId of candidates[reason]) {
      if (told.has(accountId)) continue;
      told.add(accountId);
      recipients.push({ accountId, reason });
    }
  }
  return recipients;
}

/** The watchers an issue starts with: its reporter and its assignee. */
export const initialWatchers = (authorId: number | null | undefined, assigneeId: number | null | undefined): number[] => [
  ...new Set([authorId, assigneeId].filter((id): id is number => typeof id === 'number')),
];

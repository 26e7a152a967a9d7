import { deliverNotifications } from '../jobs/inbox-writes.ts';
import type { Follow } from '../db/organisation/follows.ts';
import type { ChangeEvent } from '../feed/events.ts';
import type { EventType } from '../vocabulary/event-types.ts';
import { filterAdmits, filterNeeds } from './filter.ts';
import { filterSubject } from './subject.ts';

/**
 * Followed queries (docs/notifications.md): the webhook filters' evaluator, used for people. A
 * change to an issue that matches a query after the change (it starts matching, or it matched and
 * changed) notifies the account that follows it, `subscribed_query`, unless the change told it
 * already for another reason (lib/feed/notify.ts runs first: one notification per account and
 * change), or it made the change itself.
 */

const followable: readonly EventType[] = ['issue.created', 'issue.updated', 'comment.created'];

export async function notifyFollowers(event: ChangeEvent, following: () => Promise<Follow[]>): Promise<void> {
  if (!followable.includes(event.type) || event.issueId === undefined) return;
  const wanted = (await following()).filter((f) => f.accountId !== event.actorId);
  if (wanted.length === 0) return;
  const subject = await filterSubject(event, filterNeeds(wanted.flatMap((f) => f.selection ?? [])));
  if (!subject) return;
  const accounts = new Set(wanted.filter((f) => filterAdmits(f.selection, subject)).map((f) => f.accountId));
  if (accounts.size === 0) return;
  await deliverNotifications(
    {
      orgId: event.orgId,
      projectId: event.projectId,
      issueId: event.issueId,
      ...subject.head,
      actorId: event.actorId,
      sequence: event.sequence,
      commentId: event.commentId ?? null,
      at: event.at,
    },
    [...accounts].map((accountId) => ({ accountId, reason: 'subscribed_query' as const })),
  );
}

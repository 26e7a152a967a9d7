import { notificationId, type StoredNotification } from '../db/organisation/inbox.ts';
import type { Notification } from '../schemas/notifications.ts';
import { activityIdOf } from '../vocabulary/ids.ts';

/** A notification as the inbox shows it (docs/notifications.md). */
export const toNotification = (n: StoredNotification): Notification => ({
  id: notificationId(n),
  reason: n.reason,
  issue: { key: n.issueKey, title: n.title, project_id: n.projectId, issue_id: n.issueId },
  actor_id: n.actorId,
  activity_id: activityIdOf(n.projectId, { issueId: n.issueId }, n.sequence),
  comment_id: n.commentId,
  created_at: n.createdAt,
  read_at: n.readAt,
});

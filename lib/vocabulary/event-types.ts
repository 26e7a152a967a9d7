/** Every event a webhook can subscribe to. */
export const eventTypes = [
  'issue.created',
  'issue.updated',
  'issue.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  // A file of an issue or its comment: added once it is ready (uploaded and checked), removed when
  // a ready one is deleted (on its own, or with its comment; an issue's, sprint's or project's
  // delete is the parent's event).
  'attachment.added',
  'attachment.removed',
  'sprint.activated',
  'sprint.completed',
  'sprint.deleted',
  'project.deleted',
  // One per import job, when it ends (succeeded or failed), with its counts: not one per issue.
  'import.completed',
  // A notification written to an account's inbox (docs/notifications.md): sent only to endpoints
  // that name it, never to `*`.
  'notification.created',
  // An item of the trash (docs/trash.md) brought back whole, or deleted for good (a purge, or its
  // expiry); one pair per kind the trash holds (TRASH_KINDS).
  'label.restored',
  'label.purged',
  'webhook.restored',
  'webhook.purged',
  'comment.restored',
  'comment.purged',
  'attachment.restored',
  'attachment.purged',
  'issue.restored',
  'issue.purged',
  'sprint.restored',
  'sprint.purged',
  'project.restored',
  'project.purged',
] as const;
export type EventType = (typeof eventTypes)[number];

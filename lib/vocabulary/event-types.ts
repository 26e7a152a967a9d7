/** Every event a webhook can subscribe to. */
export const eventTypes = [
  'issue.created',
  'issue.updated',
  'issue.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'sprint.activated',
  'sprint.completed',
  'sprint.deleted',
  'project.deleted',
  // One per import job, when it ends (succeeded or failed), with its counts: not one per issue.
  'import.completed',
] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Why a write was refused: the closed set of reasons the guards of each kind of write name where
 * their conditions are written. `Refused.reason` (lib/db/core/transactions.ts) is one of them, so a
 * reason misspelt in a guard, a comparison or a mapping fails to compile; a use case maps the
 * reasons of its write with a `Meanings` record over that write's union (lib/services/refusals.ts),
 * which must name every one of them.
 */

/** Any write: decided on a read that changed since (`STALE`), or an `If-Match` that no longer holds. */
export type CommonRefusal = 'stale' | 'precondition' | 'condition';
export type AccountRefusal = 'email_taken' | 'organisation';
/** Setting a handle: another account of the organisation has it. */
export type HandleRefusal = 'handle_taken';
/** The organisation's own item: gone. */
export type OrganisationRefusal = 'organisation';
export type ProjectRefusal = 'project' | 'prefix_taken' | 'organisation';
export type LabelRefusal = 'project' | 'label' | 'name_taken' | 'gone' | 'unindexed' | 'trashed';
/** A state of a project's workflow: the project gone, the state gone, the workflow changed since it was read. */
export type StateRefusal = 'project' | 'state' | 'workflow';
/** A project's custom fields: the project gone, its definitions changed since they were read; an issue's account value no account of the organisation. */
export type FieldRefusal = 'project' | 'fields' | 'field_account';
export type SprintRefusal = 'project' | 'sprint' | 'sprint_lead' | 'sprint_exists';
/** Moving an issue between lists (pull into a sprint, carry-over): the list it left, the one it goes to. */
export type IssueMoveRefusal = 'moved' | 'sprint' | 'target';
/** Completing a sprint: the sprint itself, and the sprint that receives its open issues. */
export type CompletionRefusal = 'sprint' | 'carry_over';
/**
 * `number_taken`: a restored issue's number points to an issue of another project (its prefix
 * reused); `state`: the workflow state a restored issue was stored in was deleted while it was away.
 */
export type IssueRefusal =
  | 'project'
  | 'sprint'
  | 'issue'
  | 'issue_exists'
  | 'number_taken'
  | 'assignee'
  | 'moved'
  | 'gone'
  | 'other'
  | 'state'
  | IfPresentRefusal;
/** A guard on an item that may be gone, refused with its holder's id: the write is retried without it. */
export type IfPresentRefusal = `if-present:${string}`;
export type CommentRefusal = 'project' | 'sprint' | 'issue' | 'comment' | 'pointed';
export type ActivityRefusal = 'recorded' | 'owner' | 'project';
export type ImportRefusal = 'imported' | 'moved';
export type WebhookRefusal = 'webhook' | 'limit' | 'delivery';
/** A GitHub connection's writes, and a link's (lib/db/github/github.ts). */
export type GitHubConnectionRefusal = 'repository_taken' | 'connected' | 'connection';
export type GitHubLinkRefusal = 'issue' | 'links_limit' | 'stale';
export type OAuthRefusal = 'client' | 'reused' | 'revoked' | 'moved';
/** A trash item: gone (restored, purged or never there). */
export type TrashRefusal = 'trashed' | 'entry_there' | 'child_there' | 'busy' | 'prefix_taken';
export type MigrationRefusal = 'lease-lost';
/**
 * An inbox's writes: a notification already written for its change (`notified`), already read or
 * hidden (`read`), already where its issue's trip to the trash puts it (`moved`); an issue's watchers full (`watchers_limit`).
 */
export type NotificationRefusal = 'notified' | 'read' | 'moved' | 'watchers_limit' | 'issue' | 'gone';
/** `not_author`: a comment's file deleted by someone who is neither its uploader, an admin, nor the comment's author. */
export type AttachmentRefusal =
  | 'project'
  | 'sprint'
  | 'issue'
  | 'comment'
  | 'attachment'
  | 'not_author'
  | 'files_limit'
  | 'bytes_limit'
  | 'pending_limit'
  | 'not_pending';

/** Every reason a write may be refused with. */
export type RefusalReason =
  | CommonRefusal
  | AccountRefusal
  | HandleRefusal
  | OrganisationRefusal
  | ProjectRefusal
  | LabelRefusal
  | StateRefusal
  | FieldRefusal
  | SprintRefusal
  | IssueMoveRefusal
  | CompletionRefusal
  | IssueRefusal
  | CommentRefusal
  | ActivityRefusal
  | ImportRefusal
  | WebhookRefusal
  | GitHubConnectionRefusal
  | GitHubLinkRefusal
  | OAuthRefusal
  | MigrationRefusal
  | AttachmentRefusal
  | NotificationRefusal
  | TrashRefusal;

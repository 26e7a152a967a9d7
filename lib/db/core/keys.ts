/**
 * The key of every kind of item the one table holds. Every key of organisation data starts with the
 * organisation id, so data of another organisation cannot be addressed by construction. What each
 * kind is and where it lives, row by row: lib/db/layout.ts (the layout table of docs/data-model.md;
 * test/unit/key-layout.test.ts fails on a key built here that it does not declare).
 *
 * A project's sprints, issues and comments share the project's partition, so deleting a project
 * is a Query over one item collection (never a Scan), and every list is a consistent LSI1 query.
 */

const pad = (n: number, width = 10) => String(n).padStart(width, '0');

/** Stream sequence numbers are decimal strings of up to 40 digits; padded, string order is stream order. */
const padSequence = (sequence: string) => sequence.padStart(40, '0');

/** Positions are non-negative safe integers; padded so that string order is numeric order. */
export const padPosition = (pos: number) => pad(pos, 16);

export interface Key {
  PK: string;
  SK: string;
}

export const orgPk = (orgId: number) => `ORG#${pad(orgId)}`;
export const projectPk = (orgId: number, projectId: number) => `${orgPk(orgId)}#P#${pad(projectId)}`;
export const assigneePk = (orgId: number, accountId: number) => `${orgPk(orgId)}#A#${pad(accountId)}`;
/** The organisation's search partition: one record per issue of every project (docs/search.md). */
export const searchPk = (orgId: number) => `${orgPk(orgId)}#SEARCH`;
/** The partition listing the cascades still to finish: few items, written only by the consumer. */
export const pendingCascadesPk = 'CASCADE';
/** The partition of the data migrations' records and their runner's lease (lib/db/core/migrations.ts). */
export const migrationsPk = 'MIGRATION';
/** What every token item's partition key starts with (operators' commands find token items by it). */
export const tokenPkPrefix = 'TOKEN#';

export const keys = {
  /** The global organisation-id sequence. */
  orgSequence: (): Key => ({ PK: 'GLOBAL', SK: 'SEQ' }),
  org: (orgId: number): Key => ({ PK: orgPk(orgId), SK: 'ORG' }),
  sequences: (orgId: number): Key => ({ PK: orgPk(orgId), SK: 'SEQ' }),
  account: (orgId: number, accountId: number): Key => ({ PK: orgPk(orgId), SK: `ACCOUNT#${pad(accountId)}` }),
  email: (orgId: number, email: string): Key => ({ PK: orgPk(orgId), SK: `EMAIL#${email.toLowerCase()}` }),
  project: (orgId: number, projectId: number): Key => ({ PK: orgPk(orgId), SK: `PROJECT#${pad(projectId)}` }),
  prefix: (orgId: number, prefix: string): Key => ({ PK: orgPk(orgId), SK: `PREFIX#${prefix}` }),
  sprint: (orgId: number, projectId: number, sprintId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `SPRINT#${pad(sprintId)}`,
  }),
  issue: (orgId: number, projectId: number, issueId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `ISSUE#${pad(issueId)}`,
  }),
  comment: (orgId: number, projectId: number, issueId: number, commentId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `ISSUE#${pad(issueId)}#C#${pad(commentId)}`,
  }),
  /**
   * Where a comment lives, for `GET /comments/{id}` (whose path names no project): written and
   * deleted in the same transaction as the comment, read consistently.
   */
  commentPointer: (orgId: number, commentId: number): Key => ({ PK: orgPk(orgId), SK: `COMMENT#${pad(commentId)}` }),
  /**
   * An attachment of an issue (or of one of its comments), stored under the issue: the issue's
   * cascade removes it with its comments, and one Query lists an issue's attachments (lib/db/attachments/attachments.ts).
   */
  attachment: (orgId: number, projectId: number, issueId: number, attachmentId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `${skPrefixes.issueAttachments(issueId)}${pad(attachmentId)}`,
  }),
  /**
   * That the bytes of expired attachment `attachmentId` (a pending one whose item its TTL removed)
   * were given back to the organisation's count: written in the same transaction, so that a
   * replayed stream record gives them back only once (lib/db/attachments/attachments.ts). Expires itself.
   */
  attachmentExpired: (orgId: number, attachmentId: number): Key => ({
    PK: orgPk(orgId),
    SK: `ATTACHMENTEXPIRED#${pad(attachmentId)}`,
  }),
  /** The pending uploads of account `accountId` (attachments it declared, not completed): their count and bytes, within the account's cap. */
  pendingUploads: (orgId: number, accountId: number): Key => ({ PK: orgPk(orgId), SK: `PENDINGUPLOADS#${pad(accountId)}` }),
  /** A label of the project's catalogue (its name and colour are also on the project item: lib/db/issues/labels.ts). */
  label: (orgId: number, projectId: number, labelId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `LABEL#${pad(labelId)}`,
  }),
  /** The name guard of a label: one per case-folded name in a project (`folded`: lib/services/labels.ts). */
  labelName: (orgId: number, projectId: number, folded: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `LABELNAME#${folded}`,
  }),
  /** A state of the project's workflow (the whole workflow is also on the project item: lib/db/projects/states.ts). */
  state: (orgId: number, projectId: number, stateId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `STATE#${pad(stateId)}`,
  }),
  /** A completed sprint's summary, sorted by its completion time `completedAt` (ISO 8601 UTC). */
  velocity: (orgId: number, projectId: number, completedAt: string, sprintId: number): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `VELOCITY#${completedAt}#${pad(sprintId)}`,
  }),
  /** An activity entry of an issue: `sequence` is the stream record's, so a replay finds it written. */
  issueActivity: (orgId: number, projectId: number, issueId: number, sequence: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `ISSUE#${pad(issueId)}#A#${padSequence(sequence)}`,
  }),
  /**
   * The description an issue entry replaced (and a digest of the one it wrote), kept beside the
   * entry for its revert (docs/activity.md); not listed, removed with the issue.
   */
  issueActivityText: (orgId: number, projectId: number, issueId: number, sequence: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `ISSUE#${pad(issueId)}#A#${padSequence(sequence)}#TEXT`,
  }),
  sprintActivity: (orgId: number, projectId: number, sprintId: number, sequence: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `SPRINT#${pad(sprintId)}#A#${padSequence(sequence)}`,
  }),
  webhook: (orgId: number, webhookId: number): Key => ({ PK: orgPk(orgId), SK: `WEBHOOK#${pad(webhookId)}` }),
  /** One partition per endpoint: a busy endpoint's deliveries never crowd the organisation's. */
  delivery: (orgId: number, webhookId: number, deliveryId: string): Key => ({
    PK: `${orgPk(orgId)}#W#${pad(webhookId)}`,
    SK: `DELIVERY#${deliveryId}`,
  }),
  /** The organisation's (and each endpoint's) webhook attempts in flight in a lane, apart from its busy partition. */
  deliveriesInFlight: (orgId: number, lane: string): Key => ({ PK: `${orgPk(orgId)}#INFLIGHT`, SK: `LANE#${lane}` }),
  /**
   * An issue assigned to account `accountId`, in the account's own partition: the index of
   * `GET /me/issues`, written in the same transactions as the issue (lib/db/issues/assigned.ts).
   */
  assignedIssue: (orgId: number, accountId: number, projectId: number, issueId: number): Key => ({
    PK: assigneePk(orgId, accountId),
    SK: `ISSUE#${pad(projectId)}#${pad(issueId)}`,
  }),
  /**
   * An issue's search record, in its organisation's search partition: the index of
   * `GET /api/v1/issues?q=`, written in the same transactions as the issue (the `search-index`
   * derivation, lib/model/derivations.ts).
   */
  searchIssue: (orgId: number, projectId: number, issueId: number): Key => ({
    PK: searchPk(orgId),
    SK: `ISSUE#${pad(projectId)}#${pad(issueId)}`,
  }),
  /** Where the issue numbered `issueNumber` ("APL-42") lives: written by the create transaction. */
  issueKey: (orgId: number, issueNumber: string): Key => ({ PK: orgPk(orgId), SK: `ISSUEKEY#${issueNumber.toUpperCase()}` }),
  /**
   * Child `issueId` of the issue numbered `parentNumber`, right after the parent's pointer: one
   * Query from the pointer reads the pointer and the children in order (`GET /issues/{key}/sub_issues`).
   */
  subIssue: (orgId: number, parentNumber: string, issueId: number): Key => ({
    PK: orgPk(orgId),
    SK: `${subIssuesPrefix(parentNumber)}${pad(issueId)}`,
  }),
  token: (tokenHash: string): Key => ({ PK: `${tokenPkPrefix}${tokenHash}`, SK: 'TOKEN' }),
  /** An OAuth client registered at `/oauth/register` (it belongs to no organisation until used). */
  oauthClient: (clientId: string): Key => ({ PK: `OAUTHCLIENT#${clientId}`, SK: 'CLIENT' }),
  /** The client registrations made from one source address in one hour (`hour`: Unix hours). */
  oauthRegistrations: (address: string, hour: number): Key => ({ PK: `OAUTHREG#${address}`, SK: `HOUR#${hour}` }),
  /** An authorization code, by its hash: deleted by the exchange that uses it. */
  oauthCode: (codeHash: string): Key => ({ PK: `OAUTHCODE#${codeHash}`, SK: 'CODE' }),
  /** An approval (a grant): the hashes of its live access and refresh tokens, so revoking finds both. */
  oauthGrant: (grantId: string): Key => ({ PK: `OAUTHGRANT#${grantId}`, SK: 'GRANT' }),
  /** A refresh token, by its hash; kept (marked used) after its rotation, so that a replay is recognised. */
  oauthRefresh: (refreshHash: string): Key => ({ PK: `OAUTHREFRESH#${refreshHash}`, SK: 'REFRESH' }),
  /**
   * An Idempotency-Key record; `key` is the persistence layer's hash of (account, route, path, key).
   * One partition per record: a shared partition would be hot and, beside the LSIs, capped at 10 GB.
   */
  idempotency: (key: string): Key => ({ PK: `IDEMPOTENCY#${key}`, SK: 'IDEMPOTENCY' }),
  /** Part `n` (from 0) of a stored response too large for the record's own item. */
  idempotencyPart: (key: string, n: number): Key => ({ PK: `IDEMPOTENCY#${key}`, SK: `PART#${pad(n, 4)}` }),
  /**
   * The marker of the delete of the item at `deleted` (lib/db/core/deletions.ts): found by the deleted
   * item's key, in a partition of its own (the organisation's or project's PK + `#DEL`), so that no
   * cascade or list of the item's partition reads it.
   */
  /** A trashed item (lib/db/core/trash.ts): the organisation's trash partition, the item's own sort key. */
  trash: (orgId: number, trashedSk: string): Key => ({ PK: `${orgPk(orgId)}#TRASH`, SK: trashedSk }),
  deletion: (deleted: Key): Key => ({ PK: `${deleted.PK}#DEL`, SK: deleted.SK }),
  /** A data migration's record: status, progress cursor, counts, error (lib/migrations/index.ts names them). */
  migration: (name: string): Key => ({ PK: migrationsPk, SK: `MIGRATION#${name}` }),
  /** The lease of the one runner of the migrations at a time (expires if its holder dies). */
  migrationLease: (): Key => ({ PK: migrationsPk, SK: 'LEASE' }),
  /**
   * The issue an import created from the source's issue `sourceKey` (`source`: jira, github,
   * export): put in the issue's create transaction, refused if present, so an import run twice
   * creates nothing twice. In the project's partition: the project's cascade removes it.
   */
  importedIssue: (orgId: number, projectId: number, source: string, sourceKey: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `${importedPrefix(source)}${sourceKey}`,
  }),
  /**
   * A comment an import created from the source's comment `sourceKey` (an export file's comment id,
   * or `<issue key>#<n>`): put in the comment's transaction, refused if present.
   */
  importedComment: (orgId: number, projectId: number, source: string, sourceKey: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `${importedCommentPrefix(source)}${sourceKey}`,
  }),
  /** The issue numbers reserved for the keys of `source` that keep their number (lib/db/imports/imports.ts). */
  importNumbers: (orgId: number, projectId: number, source: string): Key => ({
    PK: projectPk(orgId, projectId),
    SK: `IMPORTNUMBERS#${source}`,
  }),
  /** An import job (`POST /imports`): its status, progress and report (lib/db/imports/import-jobs.ts). */
  importJob: (orgId: number, jobId: string): Key => ({ PK: orgPk(orgId), SK: `IMPORTJOB#${jobId}` }),
  /** Part `n` (from 0) of an import job's report's maps (keys, ids), right after the job: one Query reads both. */
  importJobReportPart: (orgId: number, jobId: string, n: number): Key => ({
    PK: orgPk(orgId),
    SK: `IMPORTJOB#${jobId}#REPORT#${pad(n, 4)}`,
  }),
  /** Part `n` (from 0) of an import job's uploaded file, in a partition of its own (TTL expires_at). */
  importJobPart: (orgId: number, jobId: string, n: number): Key => ({
    PK: `${orgPk(orgId)}#IMPORT#${jobId}`,
    SK: `PART#${pad(n, 4)}`,
  }),
  /** A cascade (of a project, sprint or issue) still to finish, with where it stopped. */
  pendingCascade: (kind: string, orgId: number, projectId: number, id: number): Key => ({
    PK: pendingCascadesPk,
    SK: `${kind}#${pad(orgId)}#${pad(projectId)}#${pad(id)}`,
  }),
};

/** The SK prefix of a project's records of issues imported from `source`. */
export const importedPrefix = (source: string) => `IMPORTED#${source}#`;
/** The SK prefix of a project's records of comments imported from `source`. */
export const importedCommentPrefix = (source: string) => `IMPORTCOMMENT#${source}#`;

/** The SK prefix of the children of the issue numbered `parentNumber` (they sort right after its pointer). */
export const subIssuesPrefix = (parentNumber: string) => `ISSUEKEY#${parentNumber.toUpperCase()}#SUB#`;

/** LSI1 sort keys: the order of each collection. */
export const listKeys = {
  account: (accountId: number) => `ACCOUNT#${pad(accountId)}`,
  project: (projectId: number) => `PROJECT#${pad(projectId)}`,
  sprint: (sprintId: number) => `SPRINT#${pad(sprintId)}`,
  label: (labelId: number) => `LABEL#${pad(labelId)}`,
  state: (stateId: number) => `STATE#${pad(stateId)}`,
  sprintIssue: (sprintId: number, position: number, issueId: number) =>
    `S#${pad(sprintId)}#${padPosition(position)}#${pad(issueId)}`,
  backlogIssue: (position: number, issueId: number) => `B#${padPosition(position)}#${pad(issueId)}`,
  /** Sorts just before every issue of the list whose position is `position` or more. */
  issueFrom: (sprintId: number | null, position: number) =>
    sprintId === null ? `B#${padPosition(position)}` : `S#${pad(sprintId)}#${padPosition(position)}`,
  comment: (issueId: number, commentId: number) => `C#${pad(issueId)}#${pad(commentId)}`,
  /** An assigned issue, by its `updated_at` (ISO 8601 UTC, so string order is time order); listed backwards. */
  assignedIssue: (updatedAt: string, projectId: number, issueId: number) => `MI#${updatedAt}#${pad(projectId)}#${pad(issueId)}`,
  /** A search record, by its issue's `updated_at` then id (the default order of a search, read backwards). */
  searchIssue: (updatedAt: string, projectId: number, issueId: number) => `U#${updatedAt}#${pad(issueId)}#${pad(projectId)}`,
  issueActivity: (issueId: number, sequence: string) => `IA#${pad(issueId)}#${padSequence(sequence)}`,
  sprintActivity: (sprintId: number, sequence: string) => `SA#${pad(sprintId)}#${padSequence(sequence)}`,
  webhook: (webhookId: number) => `WEBHOOK#${pad(webhookId)}`,
  /** A trashed item, newest deletion first (the time counted down from the year 2286). */
  trash: (deletedAtMs: number, trashedSk: string) => `T#${pad(9_999_999_999_999 - deletedAtMs, 13)}#${trashedSk}`,
  /** Deliveries newest last by creation time (listed backwards). */
  delivery: (createdAtMs: number, deliveryId: string) => `D#${pad(createdAtMs, 15)}#${deliveryId}`,
};

/** A collection to list: the partition and the LSK prefix its members share. */
export interface Collection {
  pk: string;
  prefix: string;
}

export const collections = {
  accounts: (orgId: number): Collection => ({ pk: orgPk(orgId), prefix: 'ACCOUNT#' }),
  projects: (orgId: number): Collection => ({ pk: orgPk(orgId), prefix: 'PROJECT#' }),
  sprints: (orgId: number, projectId: number): Collection => ({ pk: projectPk(orgId, projectId), prefix: 'SPRINT#' }),
  labels: (orgId: number, projectId: number): Collection => ({ pk: projectPk(orgId, projectId), prefix: 'LABEL#' }),
  sprintIssues: (orgId: number, projectId: number, sprintId: number): Collection => ({
    pk: projectPk(orgId, projectId),
    prefix: `S#${pad(sprintId)}#`,
  }),
  backlogIssues: (orgId: number, projectId: number): Collection => ({ pk: projectPk(orgId, projectId), prefix: 'B#' }),
  comments: (orgId: number, projectId: number, issueId: number): Collection => ({
    pk: projectPk(orgId, projectId),
    prefix: `C#${pad(issueId)}#`,
  }),
  issueActivity: (orgId: number, projectId: number, issueId: number): Collection => ({
    pk: projectPk(orgId, projectId),
    prefix: `IA#${pad(issueId)}#`,
  }),
  sprintActivity: (orgId: number, projectId: number, sprintId: number): Collection => ({
    pk: projectPk(orgId, projectId),
    prefix: `SA#${pad(sprintId)}#`,
  }),
  trash: (orgId: number): Collection => ({ pk: `${orgPk(orgId)}#TRASH`, prefix: 'T#' }),
  webhooks: (orgId: number): Collection => ({ pk: orgPk(orgId), prefix: 'WEBHOOK#' }),
  assignedIssues: (orgId: number, accountId: number): Collection => ({ pk: assigneePk(orgId, accountId), prefix: 'MI#' }),
  search: (orgId: number): Collection => ({ pk: searchPk(orgId), prefix: 'U#' }),
  deliveries: (orgId: number, webhookId: number): Collection => ({ pk: `${orgPk(orgId)}#W#${pad(webhookId)}`, prefix: 'D#' }),
  /** Everything under a project (its sprints, issues and comments): the cascade of a project delete. */
  projectContents: (orgId: number, projectId: number) => ({ pk: projectPk(orgId, projectId) }),
};

/** Base-table SK prefixes of what is stored under an item (the cascade of an issue delete). */
/** The sort key of attachment `attachmentId` in its organisation's trash (attachment ids are the organisation's sequence). */
export const trashedAttachmentSk = (attachmentId: number): string => `ATTACHMENT#${pad(attachmentId)}`;

export const skPrefixes = {
  issueComments: (issueId: number) => `ISSUE#${pad(issueId)}#C#`,
  /** An issue's attachments (its comments' included). */
  issueAttachments: (issueId: number) => `ISSUE#${pad(issueId)}#F#`,
  /** The parts of a stored Idempotency-Key response, in its record's partition. */
  idempotencyParts: 'PART#',
  /** Everything stored under an issue: its comments and its activity (not the issue itself). */
  underIssue: (issueId: number) => `ISSUE#${pad(issueId)}#`,
  sprintActivity: (sprintId: number) => `SPRINT#${pad(sprintId)}#A#`,
};

/** Base-table SK prefix of a project's completed-sprint summaries (newest last). */
export const velocityPrefix = 'VELOCITY#';

/**
 * The item types whose removal cascades to what lives under them (lib/db/jobs/cascade.ts); the stream's
 * event filter in the stack (infra/constructs/cascade-consumer.ts) lets only their REMOVEs through.
 */
export const cascadingTypes = ['project', 'sprint', 'issue', 'label', 'state'] as const;

/** Parses the ids back out of a project partition key (used by the cascade consumer). */
export function parseProjectPk(pk: string): { orgId: number; projectId: number } | undefined {
  const m = /^ORG#(\d{10})#P#(\d{10})$/.exec(pk);
  return m ? { orgId: Number(m[1]), projectId: Number(m[2]) } : undefined;
}

/** The pointer of a comment, from the comment's own key (the cascade deletes both); undefined for any other key. */
export function commentPointerOf(key: Key): Key | undefined {
  const project = parseProjectPk(key.PK);
  const m = /^ISSUE#\d{10}#C#(\d{10})$/.exec(key.SK);
  return project && m ? keys.commentPointer(project.orgId, Number(m[1])) : undefined;
}

/** Position and id back out of an issue's LSK (sprint or backlog), for keys-only reads of a list. */
export function parseIssueListKey(lsk: string): { position: number; issueId: number } | undefined {
  const m = /^(?:S#\d{10}|B)#(\d{16})#(\d{10})$/.exec(lsk);
  return m ? { position: Number(m[1]), issueId: Number(m[2]) } : undefined;
}

/**
 * What a trash item's removal is marked as deleted under (`keys.deletion` of it; lib/db/core/deletions.ts):
 * the trash item's key and the time of the delete that put it there, since the same key is trashed
 * again after a restore and a marker lives two days.
 */
export const trashMarkerKey = (trashKey: Key, deletedAt: string): Key => ({ PK: trashKey.PK, SK: `${trashKey.SK}@${deletedAt}` });

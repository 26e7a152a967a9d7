/**
 * The key of every kind of item the one table holds. Every key of organisation data starts with the
 * organisation id, so data of another organisation cannot be addressed by construction. What each
 * kind is and where it lives, row by row: tools/docs/layout.ts (the layout table of docs/data-model.md;
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

/**
 * How a value is written into a key: ids padded to 10 digits, so that string order is numeric order;
 * stream sequence numbers to 40; parts to 4; texts as they are, or folded.
 */
interface Slot<V> {
  write: (value: V) => string;
}
const id: Slot<number> = { write: (n) => pad(n) };
const part: Slot<number> = { write: (n) => pad(n, 4) };
const whole: Slot<number> = { write: (n) => String(n) };
const sequence: Slot<string> = { write: padSequence };
const text: Slot<string> = { write: (s) => s };
const upper: Slot<string> = { write: (s) => s.toUpperCase() };
const lower: Slot<string> = { write: (s) => s.toLowerCase() };
const position: Slot<number> = { write: padPosition };
/** A time in milliseconds, padded: string order is time order. */
const time: Slot<number> = { write: (ms) => pad(ms, 15) };
/** A time in milliseconds counted down from the year 2286: string order is newest first. */
const countdown: Slot<number> = { write: (ms) => pad(9_999_999_999_999 - ms, 13) };

type Slots = readonly (readonly [name: string, slot: Slot<never>])[];
type Args<S extends Slots> = { -readonly [K in keyof S]: S[K] extends readonly [string, Slot<infer V>] ? V : never };

/** A key builder, with the placement it builds (the layout's words: `ORG#o#P#p`, `SPRINT#s`). */
export interface KeyBuilder<A extends unknown[]> {
  (...args: A): Key;
  placement: Key;
}

/** A template's writer: each `#`-separated word that names one of `slots` is that argument, as its slot writes it. */
function writerOf(template: string, slots: Slots): (args: unknown[]) => string {
  const at = new Map(slots.map(([name], i) => [name, i]));
  const words = template.split('#').map((word) => at.get(word) ?? word);
  return (args) => words.map((w) => (typeof w === 'string' ? w : (slots[w]![1] as Slot<unknown>).write(args[w]))).join('#');
}

/**
 * The key builder of a placement, spelled once: each `#`-separated word of its PK and SK that names
 * one of `slots` is that argument, written as its slot writes it; every other word is literal.
 */
function keyOf<const S extends Slots>(placement: Key, slots: S): KeyBuilder<Args<S>> {
  const [pk, sk] = [writerOf(placement.PK, slots), writerOf(placement.SK, slots)];
  return Object.assign((...args: Args<S>): Key => ({ PK: pk(args), SK: sk(args) }), { placement });
}

/** An LSI1 sort key's builder, spelled once as its placement (`C#i#c`), as `keyOf` spells a key. */
function listKeyOf<const S extends Slots>(placement: string, slots: S): ((...args: Args<S>) => string) & { placement: string } {
  const write = writerOf(placement, slots);
  return Object.assign((...args: Args<S>) => write(args), { placement });
}

export const keys = {
  /** The global organisation-id sequence. */
  orgSequence: keyOf({ PK: 'GLOBAL', SK: 'SEQ' }, []),
  org: keyOf({ PK: 'ORG#o', SK: 'ORG' }, [['o', id]]),
  sequences: keyOf({ PK: 'ORG#o', SK: 'SEQ' }, [['o', id]]),
  account: keyOf({ PK: 'ORG#o', SK: 'ACCOUNT#a' }, [
    ['o', id],
    ['a', id],
  ]),
  email: keyOf({ PK: 'ORG#o', SK: 'EMAIL#e' }, [
    ['o', id],
    ['e', lower],
  ]),
  handle: keyOf({ PK: 'ORG#o', SK: 'HANDLE#h' }, [
    ['o', id],
    ['h', lower],
  ]),
  project: keyOf({ PK: 'ORG#o', SK: 'PROJECT#p' }, [
    ['o', id],
    ['p', id],
  ]),
  prefix: keyOf({ PK: 'ORG#o', SK: 'PREFIX#X' }, [
    ['o', id],
    ['X', text],
  ]),
  sprint: keyOf({ PK: 'ORG#o#P#p', SK: 'SPRINT#s' }, [
    ['o', id],
    ['p', id],
    ['s', id],
  ]),
  issue: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i' }, [
    ['o', id],
    ['p', id],
    ['i', id],
  ]),
  comment: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#C#c' }, [
    ['o', id],
    ['p', id],
    ['i', id],
    ['c', id],
  ]),
  /**
   * Where a comment lives, for `GET /comments/{id}` (whose path names no project): written and
   * deleted in the same transaction as the comment, read consistently.
   */
  commentPointer: keyOf({ PK: 'ORG#o', SK: 'COMMENT#c' }, [
    ['o', id],
    ['c', id],
  ]),
  /**
   * An attachment of an issue (or of one of its comments), stored under the issue: the issue's
   * cascade removes it with its comments, and one Query lists an issue's attachments (lib/db/attachments/attachments.ts).
   */
  attachment: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#F#f' }, [
    ['o', id],
    ['p', id],
    ['i', id],
    ['f', id],
  ]),
  /**
   * That the bytes of expired attachment `f` (a pending one whose item its TTL removed) were given
   * back to the organisation's count: written in the same transaction, so that a replayed stream
   * record gives them back only once (lib/db/attachments/attachments.ts). Expires itself.
   */
  attachmentExpired: keyOf({ PK: 'ORG#o', SK: 'ATTACHMENTEXPIRED#f' }, [
    ['o', id],
    ['f', id],
  ]),
  /** The pending uploads of account `a` (attachments it declared, not completed): their count and bytes, within the account's cap. */
  pendingUploads: keyOf({ PK: 'ORG#o', SK: 'PENDINGUPLOADS#a' }, [
    ['o', id],
    ['a', id],
  ]),
  /** A label of the project's catalogue (its name and colour are also on the project item: lib/db/issues/labels.ts). */
  label: keyOf({ PK: 'ORG#o#P#p', SK: 'LABEL#l' }, [
    ['o', id],
    ['p', id],
    ['l', id],
  ]),
  /** The name guard of a label: one per case-folded name `n` in a project (`folded`: lib/services/labels.ts). */
  labelName: keyOf({ PK: 'ORG#o#P#p', SK: 'LABELNAME#n' }, [
    ['o', id],
    ['p', id],
    ['n', text],
  ]),
  /** A state of the project's workflow (the whole workflow is also on the project item: lib/db/projects/states.ts). */
  state: keyOf({ PK: 'ORG#o#P#p', SK: 'STATE#s' }, [
    ['o', id],
    ['p', id],
    ['s', id],
  ]),
  /** A completed sprint's summary, sorted by its completion time `t` (ISO 8601 UTC). */
  velocity: keyOf({ PK: 'ORG#o#P#p', SK: 'VELOCITY#t#s' }, [
    ['o', id],
    ['p', id],
    ['t', text],
    ['s', id],
  ]),
  /** An activity entry of an issue: `seq` is the stream record's, so a replay finds it written. */
  issueActivity: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#A#seq' }, [
    ['o', id],
    ['p', id],
    ['i', id],
    ['seq', sequence],
  ]),
  /**
   * The description an issue entry replaced (and a digest of the one it wrote), kept beside the
   * entry for its revert (docs/activity.md); not listed, removed with the issue.
   */
  issueActivityText: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#A#seq#TEXT' }, [
    ['o', id],
    ['p', id],
    ['i', id],
    ['seq', sequence],
  ]),
  sprintActivity: keyOf({ PK: 'ORG#o#P#p', SK: 'SPRINT#s#A#seq' }, [
    ['o', id],
    ['p', id],
    ['s', id],
    ['seq', sequence],
  ]),
  webhook: keyOf({ PK: 'ORG#o', SK: 'WEBHOOK#w' }, [
    ['o', id],
    ['w', id],
  ]),
  /** One partition per endpoint: a busy endpoint's deliveries never crowd the organisation's. */
  delivery: keyOf({ PK: 'ORG#o#W#w', SK: 'DELIVERY#d' }, [
    ['o', id],
    ['w', id],
    ['d', text],
  ]),
  /** The organisation's (and each endpoint's) webhook attempts in flight in lane `l`, apart from its busy partition. */
  deliveriesInFlight: keyOf({ PK: 'ORG#o#INFLIGHT', SK: 'LANE#l' }, [
    ['o', id],
    ['l', text],
  ]),
  /**
   * An issue assigned to account `a`, in the account's own partition: the index of
   * `GET /me/issues`, written in the same transactions as the issue (lib/db/issues/assigned.ts).
   */
  assignedIssue: keyOf({ PK: 'ORG#o#A#a', SK: 'ISSUE#p#i' }, [
    ['o', id],
    ['a', id],
    ['p', id],
    ['i', id],
  ]),
  /**
   * A notification of account `a` about issue `i` of project `p`, from the stream record `seq`, in
   * the account's own partition (lib/db/organisation/inbox.ts): one per recipient and event.
   */
  notification: keyOf({ PK: 'ORG#o#A#a', SK: 'NOTE#p#i#seq' }, [
    ['o', id],
    ['a', id],
    ['p', id],
    ['i', id],
    ['seq', sequence],
  ]),
  /** The mark that an expired notification gave its place in the unread count back (once), kept a day. */
  expiredNotification: keyOf({ PK: 'ORG#o#A#a', SK: 'EXPIRED#p#i#seq' }, [
    ['o', id],
    ['a', id],
    ['p', id],
    ['i', id],
    ['seq', sequence],
  ]),
  /** An account's inbox: its count of unread notifications. */
  inbox: keyOf({ PK: 'ORG#o#A#a', SK: 'INBOX' }, [
    ['o', id],
    ['a', id],
  ]),
  /** A query account `a` follows (docs/notifications.md), in the organisation's partition, which the change feed reads whole. */
  follow: keyOf({ PK: 'ORG#o', SK: 'FOLLOW#a#f' }, [
    ['o', id],
    ['a', id],
    ['f', id],
  ]),
  /** The accounts notified about an issue, which its trip to the trash and back hides and shows. */
  notified: keyOf({ PK: 'ORG#o#NOTIFIED', SK: 'ISSUE#p#i' }, [
    ['o', id],
    ['p', id],
    ['i', id],
  ]),
  /**
   * An issue's search record, in its organisation's search partition: the index of
   * `GET /api/v1/issues?q=`, written in the same transactions as the issue (the `search-index`
   * derivation, lib/model/derivations.ts).
   */
  searchIssue: keyOf({ PK: 'ORG#o#SEARCH', SK: 'ISSUE#p#i' }, [
    ['o', id],
    ['p', id],
    ['i', id],
  ]),
  /** Where the issue numbered `X-n` ("APL-42") lives: written by the create transaction. */
  issueKey: keyOf({ PK: 'ORG#o', SK: 'ISSUEKEY#X-n' }, [
    ['o', id],
    ['X-n', upper],
  ]),
  /**
   * Child `i` of the issue numbered `X-n`, right after the parent's pointer: one Query from the
   * pointer reads the pointer and the children in order (`GET /issues/{key}/sub_issues`).
   */
  subIssue: keyOf({ PK: 'ORG#o', SK: 'ISSUEKEY#X-n#SUB#i' }, [
    ['o', id],
    ['X-n', upper],
    ['i', id],
  ]),
  /**
   * A GitHub repository connected to a project (`r`: `owner/name`, folded), outside every
   * organisation: the receiver finds the project, and the secret to check a delivery with, by the
   * repository a delivery names (lib/db/github/github.ts). One per repository: connecting it twice is refused.
   */
  githubRepo: keyOf({ PK: 'GITHUB#r', SK: 'REPO' }, [['r', lower]]),
  /** A delivery GitHub made (`d`: its `X-GitHub-Delivery`), written once: a redelivery finds it there. Expires itself. */
  githubDelivery: keyOf({ PK: 'GITHUBDELIVERY#d', SK: 'DELIVERY' }, [['d', text]]),
  /**
   * A pull request, branch or commit (`k`, `r`: its kind and number, name or SHA) naming issue `i`,
   * under the issue: the issue's cascade removes it, and one Query reads an issue's links.
   */
  issueLink: keyOf({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#L#k#r' }, [
    ['o', id],
    ['p', id],
    ['i', id],
    ['k', text],
    ['r', text],
  ]),
  token: keyOf({ PK: 'TOKEN#sha256', SK: 'TOKEN' }, [['sha256', text]]),
  /** An OAuth client registered at `/oauth/register` (it belongs to no organisation until used). */
  oauthClient: keyOf({ PK: 'OAUTHCLIENT#c', SK: 'CLIENT' }, [['c', text]]),
  /** The client registrations made from one source address in one hour (`h`: Unix hours). */
  oauthRegistrations: keyOf({ PK: 'OAUTHREG#address', SK: 'HOUR#h' }, [
    ['address', text],
    ['h', whole],
  ]),
  /** An authorization code, by its hash: deleted by the exchange that uses it. */
  oauthCode: keyOf({ PK: 'OAUTHCODE#sha', SK: 'CODE' }, [['sha', text]]),
  /** An approval (a grant): the hashes of its live access and refresh tokens, so revoking finds both. */
  oauthGrant: keyOf({ PK: 'OAUTHGRANT#g', SK: 'GRANT' }, [['g', text]]),
  /** A refresh token, by its hash; kept (marked used) after its rotation, so that a replay is recognised. */
  oauthRefresh: keyOf({ PK: 'OAUTHREFRESH#sha', SK: 'REFRESH' }, [['sha', text]]),
  /**
   * An Idempotency-Key record; `k` is the persistence layer's hash of (account, route, path, key).
   * One partition per record: a shared partition would be hot and, beside the LSIs, capped at 10 GB.
   */
  idempotency: keyOf({ PK: 'IDEMPOTENCY#k', SK: 'IDEMPOTENCY' }, [['k', text]]),
  /** Part `n` (from 0) of a stored response too large for the record's own item. */
  idempotencyPart: keyOf({ PK: 'IDEMPOTENCY#k', SK: 'PART#n' }, [
    ['k', text],
    ['n', part],
  ]),
  /** A trashed item (lib/db/core/trash.ts): the organisation's trash partition, the item's own sort key. */
  trash: (orgId: number, trashedSk: string): Key => ({ PK: `${orgPk(orgId)}#TRASH`, SK: trashedSk }),
  /**
   * The marker of the delete of the item at `deleted` (lib/db/core/deletions.ts): found by the deleted
   * item's key, in a partition of its own (the organisation's or project's PK + `#DEL`), so that no
   * cascade or list of the item's partition reads it.
   */
  deletion: (deleted: Key): Key => ({ PK: `${deleted.PK}#DEL`, SK: deleted.SK }),
  /** A data migration's record: status, progress cursor, counts, error (lib/migrations/index.ts names them). */
  migration: keyOf({ PK: 'MIGRATION', SK: 'MIGRATION#name' }, [['name', text]]),
  /** The lease of the one runner of the migrations at a time (expires if its holder dies). */
  migrationLease: keyOf({ PK: 'MIGRATION', SK: 'LEASE' }, []),
  /**
   * The issue an import created from the source's issue `key` (`src`: jira, github, export): put in
   * the issue's create transaction, refused if present, so an import run twice creates nothing
   * twice. In the project's partition: the project's cascade removes it.
   */
  importedIssue: keyOf({ PK: 'ORG#o#P#p', SK: 'IMPORTED#src#key' }, [
    ['o', id],
    ['p', id],
    ['src', text],
    ['key', text],
  ]),
  /**
   * A comment an import created from the source's comment `k` (an export file's comment id, or
   * `<issue key>#<n>`): put in the comment's transaction, refused if present.
   */
  importedComment: keyOf({ PK: 'ORG#o#P#p', SK: 'IMPORTCOMMENT#src#k' }, [
    ['o', id],
    ['p', id],
    ['src', text],
    ['k', text],
  ]),
  /** The issue numbers reserved for the keys of `src` that keep their number (lib/db/imports/imports.ts). */
  importNumbers: keyOf({ PK: 'ORG#o#P#p', SK: 'IMPORTNUMBERS#src' }, [
    ['o', id],
    ['p', id],
    ['src', text],
  ]),
  /** An import job (`POST /imports`): its status, progress and report (lib/db/imports/import-jobs.ts). */
  importJob: keyOf({ PK: 'ORG#o', SK: 'IMPORTJOB#j' }, [
    ['o', id],
    ['j', text],
  ]),
  /** Part `n` (from 0) of an import job's report's maps (keys, ids), right after the job: one Query reads both. */
  importJobReportPart: keyOf({ PK: 'ORG#o', SK: 'IMPORTJOB#j#REPORT#n' }, [
    ['o', id],
    ['j', text],
    ['n', part],
  ]),
  /** Part `n` (from 0) of an import job's uploaded file, in a partition of its own (TTL expires_at). */
  importJobPart: keyOf({ PK: 'ORG#o#IMPORT#j', SK: 'PART#n' }, [
    ['o', id],
    ['j', text],
    ['n', part],
  ]),
  /** A cascade (of a project, sprint or issue) still to finish, with where it stopped. */
  pendingCascade: keyOf({ PK: 'CASCADE', SK: 'kind#o#p#id' }, [
    ['kind', text],
    ['o', id],
    ['p', id],
    ['id', id],
  ]),
};

/** The SK prefix of a project's records of issues imported from `source`. */
export const importedPrefix = (source: string) => `IMPORTED#${source}#`;
/** The SK prefix of a project's records of comments imported from `source`. */
export const importedCommentPrefix = (source: string) => `IMPORTCOMMENT#${source}#`;

/** The SK prefix of the children of the issue numbered `parentNumber` (they sort right after its pointer). */
export const subIssuesPrefix = (parentNumber: string) => `ISSUEKEY#${parentNumber.toUpperCase()}#SUB#`;

/** LSI1 sort keys: the order of each collection. */
export const listKeys = {
  account: listKeyOf('ACCOUNT#a', [['a', id]]),
  project: listKeyOf('PROJECT#p', [['p', id]]),
  sprint: listKeyOf('SPRINT#s', [['s', id]]),
  label: listKeyOf('LABEL#l', [['l', id]]),
  state: listKeyOf('STATE#s', [['s', id]]),
  sprintIssue: listKeyOf('S#s#pos#i', [
    ['s', id],
    ['pos', position],
    ['i', id],
  ]),
  backlogIssue: listKeyOf('B#pos#i', [
    ['pos', position],
    ['i', id],
  ]),
  /** Sorts just before every issue of the list whose position is `position` or more. */
  issueFrom: (sprintId: number | null, position: number) =>
    sprintId === null ? `B#${padPosition(position)}` : `S#${pad(sprintId)}#${padPosition(position)}`,
  comment: listKeyOf('C#i#c', [
    ['i', id],
    ['c', id],
  ]),
  /** An assigned issue, by its `updated_at` (ISO 8601 UTC, so string order is time order); listed backwards. */
  assignedIssue: listKeyOf('MI#updated_at#p#i', [
    ['updated_at', text],
    ['p', id],
    ['i', id],
  ]),
  /** A notification, newest first; only while shown (its issue in the trash: none). */
  notification: listKeyOf('N#countdown#seq', [
    ['countdown', countdown],
    ['seq', sequence],
  ]),
  /** A search record, by its issue's `updated_at` then id (the default order of a search, read backwards). */
  searchIssue: listKeyOf('U#updated_at#i#p', [
    ['updated_at', text],
    ['p', id],
    ['i', id],
  ]),
  issueActivity: listKeyOf('IA#i#seq', [
    ['i', id],
    ['seq', sequence],
  ]),
  sprintActivity: listKeyOf('SA#s#seq', [
    ['s', id],
    ['seq', sequence],
  ]),
  webhook: listKeyOf('WEBHOOK#w', [['w', id]]),
  /** A trashed item, newest deletion first (the time counted down from the year 2286). */
  trash: listKeyOf('T#countdown#<SK of x>', [
    ['countdown', countdown],
    ['<SK of x>', text],
  ]),
  /** Deliveries newest last by creation time (listed backwards). */
  delivery: listKeyOf('D#time#d', [
    ['time', time],
    ['d', text],
  ]),
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
  inbox: (orgId: number, accountId: number): Collection => ({ pk: assigneePk(orgId, accountId), prefix: 'N#' }),
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
  /** An issue's links to GitHub (lib/db/github/github.ts). */
  issueLinks: (issueId: number) => `ISSUE#${pad(issueId)}#L#`,
  /** Everything stored under an issue: its comments and its activity (not the issue itself). */
  underIssue: (issueId: number) => `ISSUE#${pad(issueId)}#`,
  sprintActivity: (sprintId: number) => `SPRINT#${pad(sprintId)}#A#`,
  /** The queries an organisation's accounts follow; one account's: `follows` with its id. */
  follows: (accountId?: number) => (accountId === undefined ? 'FOLLOW#' : `FOLLOW#${pad(accountId)}#`),
  /** An account's notifications about one issue, in the account's partition. */
  issueNotifications: (projectId: number, issueId: number) => `NOTE#${pad(projectId)}#${pad(issueId)}#`,
};

/** Base-table SK prefix of a project's completed-sprint summaries (newest last). */
export const velocityPrefix = 'VELOCITY#';

/**
 * The item types whose removal cascades to what lives under them (lib/jobs/cascade.ts); the stream's
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

/**
 * What each function may do on the table: least privilege, derived from what each one does.
 * Plain data (no aws-cdk-lib): the CDK stack turns it into IAM statements, and the local runtime
 * (tools/local/permissions.ts) refuses any DynamoDB call outside it, so every e2e test exercises it.
 */
import type { Route } from '../lib/routes.ts';
import {
  type HandlerModule,
  authorizerEntry,
  cascadeEntry,
  changeFeedEntry,
  deliveryEntry,
  githubEventsEntry,
  importJobsEntry,
  migrateEntry,
} from './functions.ts';

export type TableAccess = 'none' | Route['access'];

/** The actions a function holds on the table's items, and the indexes it may query. */
export interface TableGrant {
  actions: readonly string[];
  /** Index names: `dynamodb:Query` on each (and nothing else on indexes). */
  indexes: readonly string[];
}

const reads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * The item actions of each kind of route. No Scan anywhere (the data layer never scans), no
 * BatchWriteItem (only the cascade deletes in batches). Writes are transactions, which AWS
 * authorises item by item: ConditionCheckItem, PutItem, UpdateItem, DeleteItem.
 */
export const tableActions = {
  none: [],
  read: [...reads],
  write: [...reads, 'dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
} as const satisfies Record<TableAccess, readonly string[]>;

/** Every list (a row with `success.list`) reads LSI1 in order and skips pages on the keys-only LSI1Keys (lib/db/core/list.ts). */
const listIndexes = ['LSI1', 'LSI1Keys'] as const;

/**
 * The indexes other handler modules query (lib/db): an issue's place counted and a move's
 * neighbours read on LSI1Keys, a sprint's open issues read on LSI1 when it completes. A module that
 * queries an index not granted here is refused locally (AccessDeniedException), as it would be in AWS.
 */
export const indexQueries: Record<string, readonly string[]> = {
  // An issue's place: a keys-only count in its rank-index block (lib/db/issues/issues.ts: rankInBlock).
  'functions/issues/get.ts': ['LSI1Keys'],
  'functions/backlog/get.ts': ['LSI1Keys'],
  'functions/issue-keys/get.ts': ['LSI1Keys'],
  'functions/issues/update.ts': ['LSI1Keys'],
  'functions/backlog/update.ts': ['LSI1Keys'],
  'functions/issue-keys/update.ts': ['LSI1Keys'],
  // A revert writes as a PATCH does, and answers the issue with its place (lib/services/revert.ts).
  'functions/activity/revert.ts': ['LSI1Keys'],
  // A restored issue is answered with its place, as its GET answers it (lib/services/issue-trash.ts).
  'functions/trash/restore.ts': ['LSI1Keys'],
  // Bulk writes place and move issues as the single writes do.
  'functions/issues/bulk.ts': ['LSI1Keys'],
  'functions/sprints/complete.ts': ['LSI1'],
  'functions/webhooks/read.ts': ['LSI1'],
  // GET /export reads every list's issues in order (lib/services/import-export/export.ts).
  'functions/export.ts': ['LSI1'],
  // A board reads its list's issues in order (lib/db/issues/board.ts).
  'functions/board/read.ts': ['LSI1'],
  // A state's delete counts its issues from the column counters of every sprint (lib/db/projects/states.ts).
  'functions/workflow-states/delete.ts': ['LSI1'],
  // Marking every notification read finds the unread ones in the inbox's list (lib/db/organisation/inbox.ts).
  'functions/me/mark-read.ts': ['LSI1'],
  // The MCP tools list and place issues.
  'functions/mcp.ts': ['LSI1', 'LSI1Keys'],
};

/**
 * The table access of a handler module. An unauthenticated route has no organisation, and every
 * organisation's item belongs to one (lib/db/core/keys.ts), so it gets none: the documentation routes
 * serve what the bundle carries. The exceptions: the OAuth authorization server's routes
 * (`authServer`), public, keep their own items (clients, codes, grants) and issue tokens; a receiver
 * of another service's webhooks (`receiver`, GitHub's) reads the connection a delivery names, checks
 * its signature, and writes the delivery.
 */
export function accessOf(module: HandlerModule): TableAccess {
  return module.routes.every((route) => !route.auth && !route.authServer && !route.receiver) ? 'none' : module.access;
}

/**
 * Item actions other handler modules take beyond their kind's: an import upload writes the file's
 * parts and its job in one BatchWriteItem (lib/db/imports/import-jobs.ts: up to 6 MB, past a transaction's 4 MB).
 */
export const extraActions: Record<string, readonly string[]> = {
  'functions/imports.ts': ['dynamodb:BatchWriteItem'],
};

/** The grant of a route function. */
export function grantFor(module: HandlerModule): TableGrant {
  const access = accessOf(module);
  if (access === 'none') return { actions: [], indexes: [] };
  const lists = module.routes.some((route) => route.operation.success.list);
  const indexes = new Set([...(lists ? listIndexes : []), ...(indexQueries[module.entry] ?? [])]);
  return { actions: [...tableActions[access], ...(extraActions[module.entry] ?? [])], indexes: [...indexes].sort() };
}

/**
 * The authorizer: one conditional UpdateItem takes a request from the token's bucket and returns
 * the token item (lib/db/organisation/tokens.ts); a malformed token is refused before any call.
 */
export const authorizerGrant: TableGrant = { actions: ['dynamodb:UpdateItem'], indexes: [] };

/**
 * The stream consumer (lib/jobs/cascade.ts): reads a parent's existence (GetItem), pages through its
 * children's keys (Query, on the table and LSI1, with each issue's assignee), takes assigned issues
 * out of their assignee's index (a transaction: DeleteItem and UpdateItem), clears the parent of a
 * deleted issue's sub-issues (GetItem, then a transaction: UpdateItem), deletes the children in
 * batches (BatchWriteItem), moves a deleted state's issues to the state they went to (GetItem of
 * the project, then the issue's own transaction), moves a comment's attachments into the trash
 * and back (a transaction per attachment with a ConditionCheckItem that the comment is still where
 * it was read: lib/db/attachments/attachments.ts), takes a trashed sprint's or project's issues out of what is
 * kept of them outside it and puts them back (lib/jobs/container-trash.ts: the other issues of a
 * page's relations read in one BatchGetItem), and writes down (PutItem) and clears (DeleteItem) the
 * pending entry of a cascade it must continue.
 */
export const cascadeGrant: TableGrant = {
  actions: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:Query',
    'dynamodb:BatchWriteItem',
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
    'dynamodb:UpdateItem',
  ],
  indexes: ['LSI1'],
};

/**
 * The import jobs' stream consumer (lib/services/import-export/job-runner.ts): claims and saves its job (UpdateItem,
 * PutItem), reads the file's parts (Query), and writes issues, sprints, labels, comments and
 * relations through the domain as the routes do: transactions that check ancestors
 * (ConditionCheckItem), reads of families (GetItem, BatchGetItem), the source-key records, and a
 * parent's place (LSI1Keys); its report in batches (BatchWriteItem).
 */
export const importJobsGrant: TableGrant = {
  actions: [...tableActions.write, 'dynamodb:BatchWriteItem'],
  indexes: ['LSI1', 'LSI1Keys'],
};

/**
 * The change feed's stream consumer (functions/change-feed.ts): writes each activity entry in a
 * transaction with its parent's counter and existence checks, finds the organisation's webhooks
 * (Query, LSI1 in order), writes one delivery record per endpoint and event, and removes a deleted
 * sprint's activity in batches (BatchWriteItem).
 */
export const changeFeedGrant: TableGrant = { actions: [...tableActions.write, 'dynamodb:BatchWriteItem'], indexes: ['LSI1'] };

/**
 * The GitHub deliveries' stream consumer (functions/github-events.ts, lib/services/github-events.ts):
 * reads each delivery's connection, its project and the issues it names (GetItem, BatchGetItem),
 * writes their links (transactions), and moves an issue through the issue write path as a PATCH
 * does, which counts the issue's place on LSI1Keys. It opens no secret: no KMS.
 */
export const githubEventsGrant: TableGrant = { actions: tableActions.write, indexes: ['LSI1Keys'] };

/**
 * The webhook delivery function (functions/webhooks/deliver.ts): reads the endpoint and its
 * delivery, records each attempt and, after days of failures, disables the endpoint.
 */
export const deliveryGrant: TableGrant = { actions: tableActions.write, indexes: [] };

/**
 * The data migrations (functions/migrate.ts, lib/migrations): the one function that may Scan, for
 * they visit every token, comment and organisation once (lib/db/core/query.ts: scanPages); it reads
 * accounts and organisations (GetItem, BatchGetItem), its records (Query), and writes what a route
 * writes (conditional single writes and transactions) and its records and lease.
 */
export const migrationGrant: TableGrant = { actions: [...tableActions.write, 'dynamodb:Scan'], indexes: [] };

/**
 * A use of the webhook secret key: seal or open, and whose secrets, which the encryption context
 * names (lib/aws/secret-box.ts: encryptionContext): a webhook endpoint's (organisation and webhook
 * id) or a GitHub-connected project's (organisation and project id). A function may use the key
 * only with its owner's context, so none opens the other kind's secrets.
 */
export interface SecretKeyUse {
  use: 'encrypt' | 'decrypt';
  owner: 'webhook' | 'github';
}

/**
 * Who may use the webhook secret key (lib/aws/secret-box.ts), and for what: the functions that make
 * a secret seal it (`kms:Encrypt`; none opens a stored one): webhook create and rotate-secret, and
 * GitHub connect and rotate-secret; the delivery function opens a webhook's to sign, the GitHub
 * receiver a repository's to verify a delivery's signature (`kms:Decrypt`). No other function may
 * use the key, nor is told of it.
 */
export const secretKeyUse: Readonly<Record<string, SecretKeyUse>> = {
  'functions/webhooks/create.ts': { use: 'encrypt', owner: 'webhook' },
  'functions/webhooks/rotate-secret.ts': { use: 'encrypt', owner: 'webhook' },
  [deliveryEntry]: { use: 'decrypt', owner: 'webhook' },
  'functions/github/connect.ts': { use: 'encrypt', owner: 'github' },
  'functions/github/rotate-secret.ts': { use: 'encrypt', owner: 'github' },
  'functions/github/receive.ts': { use: 'decrypt', owner: 'github' },
};

/** The grant of any function of the stack, by entry module. */
export function grantOf(entry: string, modules: HandlerModule[]): TableGrant {
  if (entry === authorizerEntry) return authorizerGrant;
  if (entry === cascadeEntry) return cascadeGrant;
  if (entry === importJobsEntry) return importJobsGrant;
  if (entry === githubEventsEntry) return githubEventsGrant;
  if (entry === changeFeedEntry) return changeFeedGrant;
  if (entry === deliveryEntry) return deliveryGrant;
  if (entry === migrateEntry) return migrationGrant;
  const module = modules.find((m) => m.entry === entry);
  if (!module) throw new Error(`no function for ${entry}`);
  return grantFor(module);
}

/**
 * What a function may do with the attachments' objects (infra/constructs/attachment-bucket.ts):
 * `stage`, sign forms that post under `staging/`; `promote`, take a posted file from there to the
 * attachment's key (read and remove it there, put its copy, and remove that copy again should the
 * attachment be deleted meanwhile); `get`, read an attachment's file and sign its downloads;
 * `delete`, remove the files of deleted attachments.
 */
export type ObjectUse = 'stage' | 'promote' | 'get' | 'delete';

/**
 * Who may use the attachments' bucket, and for what (docs/attachments.md). A pre-signed form or
 * URL carries its signer's rights, so: only the functions that hand out upload forms (the REST
 * create and the MCP tools, which also post a small file given inline) may put, and only under
 * `staging/`; only `complete` (REST and MCP) may put an attachment's file, a copy of one it checked;
 * only those that read an object or sign a download may get; only the cascade, which removes the
 * objects of deleted attachments, may delete them. No other function is told the bucket's name.
 */
export const objectUse: Readonly<Record<string, readonly ObjectUse[]>> = {
  'functions/attachments/create.ts': ['stage'],
  'functions/attachments/read.ts': ['get'],
  'functions/attachments/complete.ts': ['promote', 'get'],
  'functions/mcp.ts': ['stage', 'promote', 'get'],
  [cascadeEntry]: ['delete'],
};

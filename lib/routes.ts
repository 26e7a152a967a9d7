/**
 * THE route table: the table of contents of the API. The local gateway, the CDK stack (one Lambda
 * and one API Gateway method per row), the OpenAPI document and the MCP tool list are all built
 * from it. Adding an endpoint is one row here plus one handler file.
 *
 * A row states only what varies; the rest follows (`route`): rows are behind the token authorizer,
 * GETs only read the table, and the error statuses that follow from what a row does are added for
 * it: 422 for an unknown query parameter (every row), 404 for a path with ids, 400/413/415/422 for a JSON body, 422 for a list's paging, 400/409
 * for `Idempotency-Key`, 304 for a GET (`If-None-Match`), 412 for a conditional write (`If-Match`).
 * Rows that come in pairs are written once: `patchAndPut`, `transition`, and `inBoth` for a
 * sprint's issue routes and the backlog's.
 */
import type * as z from 'zod/mini';
import { Activity, RevertConflict } from './schemas/activity.ts';
import { BULK_MAX_ITEMS, BulkQuery, IssueBulkBody, IssueBulkResults } from './schemas/bulk.ts';
import { Account, AccountCreateBody, AccountUpdateBody, AccountWithToken, Me, TokenBody } from './schemas/accounts.ts';
import { ApiReferenceAsset, ApiReferencePage, OpenApiDocumentJson, OpenApiDocumentYaml } from './schemas/api-docs.ts';
import { Attachment, AttachmentCreateBody, AttachmentList, AttachmentWithUpload } from './schemas/attachments.ts';
import { Comment, CommentCreateBody, CommentUpdateBody } from './schemas/comments.ts';
import { ErrorBody, IssueElsewhereBody } from './schemas/common.ts';
import { Issue, IssueCreateBody, IssueListQuery, IssueUpdateBody, MyIssuesQuery, SubIssue } from './schemas/issues.ts';
import {
  InboxQuery,
  IssueWatchers,
  MarkReadBody,
  MarkReadResult,
  Notification,
  Subscription,
  SubscriptionCreateBody,
  SubscriptionList,
} from './schemas/notifications.ts';
import { ImportFileBody, ImportJob, ImportJobQuery, ImportJsonBody } from './schemas/imports.ts';
import { ExportLines, ExportQuery } from './schemas/export.ts';
import { Label, LabelCreateBody, LabelUpdateBody } from './schemas/labels.ts';
import { CustomField, CustomFieldList, FieldCreateBody, FieldUpdateBody } from './schemas/custom-fields.ts';
import { Board, BoardQuery, State, StateCreateBody, StateDeleteQuery, StateList, StateUpdateBody } from './schemas/states.ts';
import { McpMessage, McpQuery, McpRequestHeaders } from './schemas/mcp.ts';
import { Relation, RelationCreateBody, RelationList } from './schemas/relations.ts';
import { SearchBody, SearchIssue, SearchQuery } from './schemas/search.ts';
import {
  OAuthApprovalForm,
  OAuthClientInformation,
  OAuthClientRegistrationBody,
  OAuthError,
  OAuthMetadata,
  OAuthPage,
  OAuthRevokeForm,
  OAuthTokenForm,
  OAuthTokens,
} from './schemas/oauth.ts';
import { Project, ProjectCreateBody, ProjectUpdateBody } from './schemas/projects.ts';
import { Burndown, Sprint, SprintCreateBody, SprintReport, SprintUpdateBody, Velocity } from './schemas/sprints.ts';
import { SprintCompleteBody, VelocityQuery } from './schemas/sprint-outcomes.ts';
import { Restored, RestoreStarted, TrashEntry, TrashQuery } from './schemas/trash.ts';
import { OrganisationSettings, OrganisationUpdateBody } from './schemas/organisation.ts';
import {
  GitHubConnectAnswer,
  GitHubConnectBody,
  GitHubConnection,
  GitHubConnectionWithSecret,
  GitHubDeliveryAnswer,
  GitHubDeliveryBody,
  GitHubDeliveryHeaders,
  IssueLink,
} from './schemas/github.ts';
import { Delivery, DeliveryList, Webhook, WebhookCreateBody, WebhookUpdateBody, WebhookWithSecret } from './schemas/webhooks.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** API Gateway resource path, `{name}` for path parameters. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /** Behind the token authorizer (and its rate limit). */
  auth: boolean;
  /**
   * A public route of the OAuth authorization server (`/oauth/*`): no authorizer in front, yet it
   * reads and writes the table's OAuth items and, on approval, checks an API token (lib/db/organisation/oauth.ts).
   * Every other public route (the documentation) has no table access.
   */
  authServer?: boolean;
  /**
   * A public receiver of another service's webhooks (GitHub's, `/api/v1/integrations/github`): no
   * authorizer in front; it authenticates each delivery by its signature with a secret it opens
   * (KMS Decrypt), then writes the delivery for a stream consumer to work on.
   */
  receiver?: boolean;
  /** Table access the handler needs: read-only routes get read-only grants. */
  access: 'read' | 'write';
  /** The OpenAPI operation. */
  operation: {
    id: string;
    summary: string;
    /** Longer explanation (markdown) for the OpenAPI document. */
    description?: string;
    tag: string;
    /** Request body schema (wrapper included). */
    body?: z.ZodMiniType;
    /** The body may be left out (an empty body reads as `{}`). */
    optionalBody?: boolean;
    /** The body's media type when it is not JSON (OAuth's form posts). */
    bodyMediaType?: string;
    /** Every media type the body may be sent in, with its schema, where there are several (an import's file). */
    bodies?: Record<string, z.ZodMiniType>;
    /**
     * The body of the row's error answers when it is not the service's `{error}` (OAuth's
     * `{error, error_description}`, or the authorization page's HTML).
     */
    errorBody?: { schema: z.ZodMiniType; mediaType?: string };
    /** Unknown query parameters are ignored rather than refused (OAuth requires it of /oauth/authorize). */
    lenientQuery?: boolean;
    /** Query parameters, beyond the `page`/`per_page`/`cursor` that every list takes. */
    query?: z.ZodMiniObject;
    /**
     * Success status and body; `list` means a paginated JSON array of `schema`. `mediaType` is
     * that of `schema` (default `application/json`).
     */
    success: {
      status: 200 | 201 | 202 | 204 | 302 | 405;
      schema?: z.ZodMiniType;
      list?: boolean;
      description: string;
      mediaType?: string;
    };
    /**
     * Also answered: 202, with no body (a message that needs no answer: MCP's notifications), or
     * with `schema` and a `Location` to follow (work that goes on after the answer).
     */
    accepted?: string | { description: string; schema: z.ZodMiniType };
    /** Request headers the operation reads, beyond the conventions the document adds (`If-Match`...). */
    headers?: z.ZodMiniObject;
    /**
     * Other statuses (errors, 304) this operation may answer, beyond those every authenticated
     * route has (`commonErrors`). In a row: only those that do not follow from the row (see `route`).
     */
    errors: number[];
    /**
     * Body of the row's own 422: `errors` (`{errors}`, validation; the default), `error` (`{error}`,
     * a refused transition) or `either`. Every row also answers `{errors}` for an unknown query parameter.
     */
    unprocessable?: 'errors' | 'error' | 'either';
    /**
     * A POST that honours `Idempotency-Key` (`lib/http/idempotency.ts`): the same key and body replay
     * the first response, another body is 422, a malformed key 400, 409 while the first still runs.
     */
    idempotent?: boolean;
    /**
     * The answer carries a token or a secret, shown once: `Cache-Control: no-store`, and an ETag
     * only for a resource (the tag of the resource without its secret; its handler says `secret` to
     * the stack too, lib/http/stack.ts).
     */
    secret?: boolean;
    /**
     * The row's own 409: its body where it is not `{error}` (a revert's fields changed since), and
     * when it carries `Retry-After` (`retryAfter`, said in words); without it, a 409 that waiting
     * does not change (a handle taken) and carries none.
     */
    conflict?: { schema: z.ZodMiniType; description: string; retryAfter?: string };
    /** The body of the row's own 404, where it may be more than `{error}` (an issue in another list says where). */
    notFound?: { schema: z.ZodMiniType; description: string };
    /**
     * A conditional write (`If-Match`, lib/http/conditional.ts): PATCH, PUT and DELETE of a resource
     * (a path with ids) unless its row says `false` (a GitHub connection has no version), and the rows that say so (the sprint transitions). Derived by `route`.
     */
    conditional?: boolean;
  };
}

/** A row as written: the operation, with `errors` only where they do not follow from the row. */
type Spec = Omit<Route['operation'], 'errors'> & {
  errors?: number[];
  /** The body is a JSON-RPC message whose errors are answered in the body, never as 422 (a query's still is). */
  jsonRpc?: boolean;
};

/** PATCH, PUT and DELETE of a resource (a path with ids) take `If-Match`, and so do rows that say so. */
const isConditional = (method: HttpMethod, path: string, op: Spec) =>
  op.conditional === true || (op.conditional !== false && ['PATCH', 'PUT', 'DELETE'].includes(method) && path.includes('{'));

/** Statuses that follow from what a row does. */
function derivedErrors(method: HttpMethod, path: string, op: Spec): number[] {
  const errors = new Set(op.errors ?? []);
  const add = (...statuses: number[]) => statuses.forEach((s) => errors.add(s));
  if (op.errorBody) return [...errors].sort((a, b) => a - b); // OAuth's own answers: as the row lists them
  if (method === 'GET' && op.success.status === 200) add(304); // If-None-Match names its ETag
  if (isConditional(method, path, op)) add(412); // If-Match names no current version
  if (path.includes('{')) add(404); // an id that names nothing
  if (op.body) add(400, 413, 415); // malformed JSON, too large, not JSON
  add(422); // a query parameter the row does not know (lib/http/strict-query.ts); a list's paging; a body's schema
  if (op.idempotent) add(400, 409); // a malformed key; the first request with the key still runs
  return [...errors].sort((a, b) => a - b);
}

/**
 * One row. Defaults: behind the authorizer (`auth`), read-only table access for GET and write
 * access otherwise (`access`), and the derived error statuses.
 */
function route(
  method: HttpMethod,
  path: string,
  handler: string,
  spec: Spec,
  options: { auth?: boolean; access?: Route['access']; authServer?: boolean; receiver?: boolean } = {},
): Route {
  const { jsonRpc: _jsonRpc, ...operation } = spec;
  return {
    method,
    path,
    handler,
    auth: options.auth ?? true,
    ...(options.authServer ? { authServer: true } : {}),
    ...(options.receiver ? { receiver: true } : {}),
    access: options.access ?? (method === 'GET' ? 'read' : 'write'),
    operation: {
      ...operation,
      errors: derivedErrors(method, path, spec),
      ...(isConditional(method, path, spec) ? { conditional: true } : {}),
    },
  };
}

const PUT_SPELLING = '(PUT spelling; same partial-update meaning)';

/**
 * PATCH and its PUT spelling (same handler, same partial-update meaning). The PUT row's id is the
 * PATCH id with `replace` for `update`; its summary says it is the PUT spelling.
 */
function patchAndPut(path: string, handler: string, spec: Spec & { putSummary?: string }): Route[] {
  const { putSummary, ...patch } = spec;
  return [
    route('PATCH', path, handler, patch),
    route('PUT', path, handler, {
      ...patch,
      id: patch.id.replace(/^update/, 'replace'),
      summary: putSummary ?? `${patch.summary} ${PUT_SPELLING}`,
    }),
  ];
}

/**
 * A sprint transition under both of its published spellings (`/activate` and `/activation`):
 * idempotent POSTs whose refusal is a 422 `{error}`. The noun row's id is `createSprint<Noun>`.
 */
function transition(
  base: string,
  handler: string,
  spellings: { verb: string; noun: string },
  spec: Omit<Spec, 'id'> & { id: string; action: string },
): Route[] {
  const { action, ...op } = spec;
  const noun = spellings.noun[0]!.toUpperCase() + spellings.noun.slice(1);
  const shared = {
    ...op,
    errors: [422, ...(op.errors ?? [])],
    idempotent: true,
    conditional: true,
    unprocessable: op.unprocessable ?? 'error',
  };
  return [
    route('POST', `${base}/${spellings.verb}`, handler, { ...shared, summary: `${action}${op.summary}` }),
    route('POST', `${base}/${spellings.noun}`, handler, {
      ...shared,
      id: `createSprint${noun}`,
      summary: `${action} (the /${spellings.noun} spelling of /${spellings.verb})`,
    }),
  ];
}

const projectPath = '/api/v1/projects/{project_id}';
const sprintPath = `${projectPath}/sprints/{sprint_id}`;
const sprintIssuePath = `${sprintPath}/issues/{issue_id}`;
const backlogIssuePath = `${projectPath}/issues/{issue_id}`;
const labelPath = `${projectPath}/labels/{label_id}`;
const statePath = `${projectPath}/states/{state_id}`;
const fieldPath = `${projectPath}/fields/{field_id}`;
const commentPath = '/api/v1/comments/{id}';
const issueKeyPath = '/api/v1/issues/{issue_key}';
const attachmentsPath = `${issueKeyPath}/attachments`;
const webhookPath = '/api/v1/webhooks/{webhook_id}';
const trashPath = '/api/v1/trash/{trash_id}';
const githubPath = `${projectPath}/github`;

/**
 * Where an issue lives: a sprint's list or the project backlog. Every issue route comes in a pair,
 * the same row under both paths; what differs between the two (paths, handlers, tag, ids, words)
 * is here, and the rows are written once (`issueRows`, `commentRows`, `activityRow`), for both
 * lists by `inBoth`.
 */
interface IssueList {
  /** The list's path, and one issue's. */
  issues: string;
  issue: string;
  /** The list's own handlers (an issue's comments and activity share theirs). */
  handlers: string;
  tag: string;
  /** In operation ids: `getSprintIssue`, `getBacklogIssue`. */
  id: string;
  /** In the comment rows' ids: the sprint's were published first, without one. */
  commentId: string;
  /** "Create an issue at the end of …", "Retrieve an issue of …". */
  list: string;
  /** "Update an issue of …", "Delete an issue of …". */
  of: string;
  /** "List … in order". */
  listed: string;
  /** The status of a new issue unless given. */
  createdStatus: string;
  created: string;
  /** What an update's `sprint_id` and `position` do. */
  moves: string;
  /** "Comment on …", "… activity". */
  anIssue: string;
  /** "List … in creation order". */
  comments: string;
  /** 409: the sprint the write touches is being completed. */
  completing: { update: number[]; delete: number[] };
}

const sprintList: IssueList = {
  issues: `${sprintPath}/issues`,
  issue: sprintIssuePath,
  handlers: 'functions/issues',
  tag: 'Issues',
  id: 'Sprint',
  commentId: '',
  list: 'a sprint',
  of: 'of a sprint',
  listed: "a sprint's issues",
  createdStatus: 'todo',
  created: 'The issue',
  moves: '`position` reorders it, `sprint_id` moves it (null: to the backlog)',
  anIssue: 'an issue',
  comments: "an issue's comments",
  completing: { update: [409], delete: [409] }, // its sprint
};

const backlogList: IssueList = {
  issues: `${projectPath}/issues`,
  issue: backlogIssuePath,
  handlers: 'functions/backlog',
  tag: 'Backlog',
  id: 'Backlog',
  commentId: 'BacklogIssue',
  list: 'the project backlog',
  of: 'of the backlog',
  listed: "the project backlog's issues (in no sprint)",
  createdStatus: 'backlog',
  created: 'The issue (sprint_id null)',
  moves: '`sprint_id` pulls it into a sprint, `position` reorders it',
  anIssue: 'a backlog issue',
  comments: 'the comments of a backlog issue',
  completing: { update: [409], delete: [] }, // the sprint it is pulled into; a backlog delete touches none
};

/** The 404 of a nested issue path: an issue of the project that lives in another list says where. */
const issueElsewhere = {
  schema: IssueElsewhereBody,
  description:
    'Not found (`{error}`), or the issue lives in another list of the project now (`{error, issue_key, location}`: its key, and `/api/v1/issues/{issue_key}`).',
};

/** The rows of both lists, the sprint's first, from rows written once. */
const inBoth = (rows: (list: IssueList) => Route[]): [Route[], Route[]] => [rows(sprintList), rows(backlogList)];

const document = (format: string, schema: z.ZodMiniType, mediaType?: string): Spec => ({
  id: `getOpenApi${format}`,
  summary: `This OpenAPI document, as ${format.toUpperCase()}`,
  tag: 'Documentation',
  success: { status: 200, schema, ...(mediaType ? { mediaType } : {}), description: 'The document' },
  errors: [304],
});

/** The interactive reference (Swagger UI, lib/api-reference/) or one of its files: no auth, cacheable. */
const reference = (
  path: string,
  id: string,
  summary: string,
  body: { schema: z.ZodMiniType; mediaType: string; description: string },
) =>
  route(
    'GET',
    path,
    'functions/api-reference.ts',
    { id, summary, tag: 'Documentation', success: { status: 200, ...body }, errors: [304] },
    { auth: false },
  );

/** GET and DELETE `/mcp`: what a stateless MCP server answers them, 405 (the MCP specification says so). */
const notOffered = (id: string, summary: string): Spec => ({
  id,
  summary,
  tag: 'MCP',
  // The URL a client connects to is the one it sends every request to, flags included.
  query: McpQuery,
  success: { status: 405, description: 'Not offered: `Allow: POST`, and `{error}` saying why' },
  errors: [403],
});

/**
 * A row of the OAuth 2.1 authorization server in front of `/mcp` (docs/mcp.md): public, its errors
 * in OAuth's shape (or the page's HTML), and table access for its own items unless it is metadata.
 */
const oauth = (method: HttpMethod, path: string, handler: string, spec: Omit<Spec, 'tag' | 'errorBody'>, page = false) =>
  route(
    method,
    path,
    handler,
    { ...spec, tag: 'OAuth', errorBody: page ? { schema: OAuthPage, mediaType: 'text/html' } : { schema: OAuthError } },
    { auth: false, authServer: !path.startsWith('/.well-known') },
  );

const form = 'application/x-www-form-urlencoded';

const filteredListDescription =
  'Filters combine with AND; `position` stays the place in the whole list. A filtered page looks through ' +
  'at most 1,000 issues of the list from where the previous page stopped and returns the matches among them ' +
  '(possibly fewer than `per_page`, even none, with a `next` link while there is more to look through). ' +
  'Filtered pages are followed by their `next` link (`page` > 1 without its cursor is 422); `X-Total-Count` ' +
  'counts the matches up to where the page stopped looking, and is the total once there is no `next` link.';

/** An issue list's rows: the list, a create at its end, and one issue's read, update and delete. */
const issueRows = (l: IssueList): Route[] => [
  route('GET', l.issues, `${l.handlers}/list.ts`, {
    id: `list${l.id}Issues`,
    summary: `List ${l.listed} in order (\`position\` 1..n), optionally filtered`,
    description: filteredListDescription,
    tag: l.tag,
    query: IssueListQuery,
    success: { status: 200, schema: Issue, list: true, description: 'Issues, in list order' },
  }),
  route('POST', l.issues, `${l.handlers}/create.ts`, {
    id: `create${l.id}Issue`,
    summary: `Create an issue at the end of ${l.list} (status ${l.createdStatus} unless given)`,
    tag: l.tag,
    body: IssueCreateBody,
    success: { status: 201, schema: Issue, description: l.created },
    idempotent: true,
  }),
  // Both lists' bulk rows share one function (the stack's resource limit).
  route('POST', `${l.issues}/bulk`, 'functions/issues/bulk.ts', {
    id: `bulk${l.id}Issues`,
    summary: `Create or update up to ${BULK_MAX_ITEMS} issues of ${l.list} in one request, each item answered on its own`,
    description:
      'Items run in order, each as the single create (no `id`) or PATCH (`id`, optional `version` as `If-Match`) would: ' +
      'places come out as those writes give them in sequence. The answer is 200 with one result per item, ' +
      '`{status, issue}` or the status and error body of the single route; a bad item fails alone. ' +
      'One request against the rate limit; `Idempotency-Key` covers the whole request. `?dry_run=true` validates ' +
      'and answers what would happen, writing nothing (never recorded under a key).',
    tag: l.tag,
    query: BulkQuery,
    body: IssueBulkBody,
    success: { status: 200, schema: IssueBulkResults, description: 'One result per item, in order' },
    idempotent: true,
  }),
  route('GET', l.issue, `${l.handlers}/get.ts`, {
    id: `get${l.id}Issue`,
    summary: `Retrieve an issue of ${l.list}`,
    tag: l.tag,
    success: { status: 200, schema: Issue, description: 'The issue' },
    notFound: issueElsewhere,
  }),
  ...patchAndPut(l.issue, `${l.handlers}/update.ts`, {
    id: `update${l.id}Issue`,
    summary: `Update an issue ${l.of}; ${l.moves}`,
    putSummary: `Update an issue ${l.of} ${PUT_SPELLING}`,
    tag: l.tag,
    body: IssueUpdateBody,
    success: { status: 200, schema: Issue, description: 'The issue' },
    errors: l.completing.update,
    notFound: issueElsewhere,
  }),
  route('DELETE', l.issue, `${l.handlers}/delete.ts`, {
    id: `delete${l.id}Issue`,
    summary: `Delete an issue ${l.of} into the trash, with its comments, activity and attachments, until it is restored`,
    tag: l.tag,
    success: { status: 204, description: 'Deleted' },
    errors: l.completing.delete,
    notFound: issueElsewhere,
  }),
];

/** An issue's comments: the list in creation order, and a new one. */
const commentRows = (l: IssueList): Route[] => [
  route('GET', `${l.issue}/comments`, 'functions/comments/read.ts', {
    id: `list${l.commentId}Comments`,
    summary: `List ${l.comments} in creation order`,
    tag: 'Comments',
    success: { status: 200, schema: Comment, list: true, description: 'Comments, oldest first' },
    notFound: issueElsewhere,
  }),
  route('POST', `${l.issue}/comments`, 'functions/comments/create.ts', {
    id: `create${l.commentId}Comment`,
    summary: `Comment on ${l.anIssue}; the author is the owner of the token`,
    tag: 'Comments',
    body: CommentCreateBody,
    success: { status: 201, schema: Comment, description: 'The comment' },
    idempotent: true,
    notFound: issueElsewhere,
  }),
];

/** An issue's activity. */
const activityRow = (l: IssueList): Route[] => [
  route('GET', `${l.issue}/activity`, 'functions/activity/read.ts', {
    id: `list${l.id}IssueActivity`,
    summary: `${l.anIssue[0]!.toUpperCase()}${l.anIssue.slice(1)}'s activity: its creation, each changed field (from, to), comments; with actor and time`,
    tag: 'Activity',
    success: { status: 200, schema: Activity, list: true, description: 'Activity, oldest first' },
    notFound: issueElsewhere,
  }),
];

const [sprintIssues, backlogIssues] = inBoth(issueRows);
const [sprintIssueComments, backlogIssueComments] = inBoth(commentRows);
const [sprintIssueActivity, backlogIssueActivity] = inBoth(activityRow);

export const routes: Route[] = [
  // The OpenAPI document of this API (no auth; rendered at build time by `npm run openapi`)
  route('GET', '/api-docs/v1/swagger.yaml', 'functions/api-docs.ts', document('Yaml', OpenApiDocumentYaml, 'application/yaml'), {
    auth: false,
  }),
  route('GET', '/api-docs/v1/swagger.json', 'functions/api-docs.ts', document('Json', OpenApiDocumentJson), { auth: false }),
  // The interactive reference of this document (Swagger UI) and the files it loads (lib/api-reference/)
  reference('/api-docs', 'getApiReference', 'The interactive reference of this API (HTML; renders this document)', {
    schema: ApiReferencePage,
    mediaType: 'text/html',
    description: 'The page',
  }),
  reference('/api-docs/assets/swagger-ui.css', 'getApiReferenceStyles', "The reference page's style sheet (Swagger UI)", {
    schema: ApiReferenceAsset,
    mediaType: 'text/css',
    description: 'The style sheet',
  }),
  reference('/api-docs/assets/swagger-ui-bundle.js', 'getApiReferenceRenderer', "The reference page's renderer (Swagger UI)", {
    schema: ApiReferenceAsset,
    mediaType: 'text/javascript',
    description: 'The script',
  }),
  reference('/api-docs/assets/api-reference.js', 'getApiReferenceInitializer', "The reference page's start-up script", {
    schema: ApiReferenceAsset,
    mediaType: 'text/javascript',
    description: 'The script',
  }),

  // Accounts and tokens
  route('GET', '/api/v1/me', 'functions/me/get.ts', {
    id: 'getMe',
    summary: 'The calling account and its organisation',
    tag: 'Accounts',
    success: { status: 200, schema: Me, description: 'The caller' },
  }),
  route('PATCH', '/api/v1/me', 'functions/me/update.ts', {
    id: 'updateMe',
    summary: "Change the caller's own account: its handle (`null` clears it)",
    description:
      'A handle is what an @mention uses (`@ana`): 1 to 39 letters (a-z) or digits, with `-`, `_` or `.` inside. ' +
      'It is stored lower-case and is unique in the organisation in any case: a handle another account has is 409, ' +
      'one that breaks the rule 422, and nothing is written. The old handle is free at once. ' +
      'The other fields of the account are read-only here (accepted and ignored). The account has no ETag: no `If-Match`.',
    tag: 'Accounts',
    body: AccountUpdateBody,
    success: { status: 200, schema: Me, description: 'The caller, as GET /me answers' },
    conflict: {
      schema: ErrorBody,
      description: 'Another account of the organisation has the handle (in any case): nothing was written.',
    },
    conditional: false,
    errors: [409],
  }),
  route('GET', '/api/v1/organisation', 'functions/organisation/read.ts', {
    id: 'getOrganisation',
    summary: "The caller's organisation and its settings (the trash's retention)",
    tag: 'Organisation',
    success: { status: 200, schema: OrganisationSettings, description: 'The organisation' },
  }),
  ...patchAndPut('/api/v1/organisation', 'functions/organisation/update.ts', {
    id: 'updateOrganisation',
    summary: "Change the organisation's settings (admins only); If-Match names its ETag",
    description:
      'The trash retention applies to items deleted from then on; items already in the trash keep their expiry (docs/trash.md). ' +
      "Every write of the organisation's counts (a project or an account created, a webhook deleted) moves its version too.",
    tag: 'Organisation',
    body: OrganisationUpdateBody,
    success: { status: 200, schema: OrganisationSettings, description: 'The organisation' },
    conditional: true,
    errors: [403],
  }),
  route('GET', '/api/v1/me/issues', 'functions/me/issues.ts', {
    id: 'listMyIssues',
    summary: "The caller's assigned issues across the organisation's projects, newest update first",
    description:
      'Each issue shows its `position` in its own list. With `status`, a page looks through at most 1,000 of ' +
      'the assigned issues (with `labels`, at most 100: their issues are read to match the names in each ' +
      "issue's project catalogue) from where the previous page stopped and returns the matches among them, followed " +
      'by its `next` link (`page` > 1 without its cursor is 422); `X-Total-Count` then counts the matches up to ' +
      'where the page stopped looking, and is the total once there is no `next` link.',
    tag: 'Issues',
    query: MyIssuesQuery,
    success: { status: 200, schema: Issue, list: true, description: 'Issues, most recently updated first' },
  }),
  // The caller's inbox (docs/notifications.md)
  route('GET', '/api/v1/me/notifications', 'functions/me/notifications.ts', {
    id: 'listNotifications',
    summary: "The caller's notifications, newest first: assigned, mentioned, and changes to the issues it watches",
    description:
      'Written by the change feed, a moment after the change. Those about an issue in the trash are left out until it is restored. ' +
      'Filtered (`unread`, `reason`), a page looks through at most 1,000 notifications and is followed by its `next` link while more remain; ' +
      '`X-Total-Count` counts the notifications shown up to this page.',
    tag: 'Notifications',
    query: InboxQuery,
    success: { status: 200, schema: Notification, list: true, description: 'Notifications, newest first' },
  }),
  route('POST', '/api/v1/me/notifications/read', 'functions/me/mark-read.ts', {
    id: 'markNotificationsRead',
    summary: "Mark the caller's notifications read, by id or all of them",
    description: 'Marking one that is read already changes nothing; the unread count on `GET /me` moves once per notification.',
    tag: 'Notifications',
    body: MarkReadBody,
    success: { status: 200, schema: MarkReadResult, description: 'How many were marked' },
  }),
  route('POST', '/api/v1/me/subscriptions', 'functions/me/follow.ts', {
    id: 'followQuery',
    summary: 'Follow a query: be told when an issue matches it after a change (`subscribed_query`)',
    description:
      'The query is in the search grammar (docs/search.md), without `sort:`; `@me` stands for the caller. ' +
      'An issue created or changed, or commented on, that matches it afterwards notifies the caller once per change. At most 20 per account.',
    tag: 'Notifications',
    body: SubscriptionCreateBody,
    success: { status: 201, schema: Subscription, description: 'The followed query, canonical' },
    idempotent: true,
  }),
  route('GET', '/api/v1/me/subscriptions', 'functions/me/follows.ts', {
    id: 'listFollowedQueries',
    summary: 'The queries the caller follows, oldest first',
    tag: 'Notifications',
    success: { status: 200, schema: SubscriptionList, description: 'Followed queries' },
  }),
  route('DELETE', '/api/v1/me/subscriptions/{subscription_id}', 'functions/me/unfollow.ts', {
    id: 'unfollowQuery',
    summary: 'Stop following a query',
    conditional: false,
    tag: 'Notifications',
    success: { status: 204, description: 'No longer followed' },
  }),
  route('PUT', `${issueKeyPath}/watch`, 'functions/issue-keys/watch.ts', {
    id: 'watchIssue',
    summary: 'Watch an issue: be told of its comments and state changes',
    conditional: false,
    tag: 'Notifications',
    success: { status: 200, schema: IssueWatchers, description: 'Who watches the issue now' },
  }),
  route('DELETE', `${issueKeyPath}/watch`, 'functions/issue-keys/unwatch.ts', {
    id: 'unwatchIssue',
    summary: 'Stop watching an issue',
    conditional: false,
    tag: 'Notifications',
    success: { status: 200, schema: IssueWatchers, description: 'Who watches the issue now' },
  }),
  // Search of the whole organisation (docs/search.md): one function for both forms
  route('GET', '/api/v1/issues', 'functions/issues/search.ts', {
    id: 'searchIssues',
    summary: 'Search the issues of every project, sprint and backlog of the organisation with a query (`q`)',
    description:
      'The grammar is docs/search.md. A page looks through at most 1,000 issues in the order of `updated_at` (the range of ' +
      '`updated:` read as a key range) and returns the matches among them, followed by its `next` link while more remain ' +
      '(`page` > 1 without its cursor is 422); `X-Total-Count` counts the matches up to where the page stopped looking. ' +
      '`sort:created`, `priority`, `due` and `points` are exact when at most 1,000 issues were updated in the range, and 422 otherwise. ' +
      'A query that cannot be read is 422 with the place (1-based) and what was expected.',
    tag: 'Issues',
    query: SearchQuery,
    success: {
      status: 200,
      schema: SearchIssue,
      list: true,
      description: 'Matching issues, most recently updated first unless `sort:` says otherwise',
    },
  }),
  route(
    'POST',
    '/api/v1/issues/search',
    'functions/issues/search.ts',
    {
      id: 'searchIssuesJson',
      summary:
        'The same search with the selection as JSON (the form `q` is parsed into), and `per_page` and `cursor` in the body',
      description: 'Answers as `GET /api/v1/issues?q=`; its `next` link is that GET, with the canonical query of the selection.',
      tag: 'Issues',
      body: SearchBody,
      success: { status: 200, schema: SearchIssue, list: true, description: 'Matching issues' },
    },
    { access: 'read' },
  ),
  // Token-issuing POSTs never honour Idempotency-Key: a replay would have to store the token.
  route('POST', '/api/v1/me/token', 'functions/me/regenerate-token.ts', {
    id: 'regenerateToken',
    summary: 'Regenerate the API token (the old one stops working at once)',
    tag: 'Accounts',
    success: { status: 201, schema: TokenBody, description: 'The new token, shown once' },
    secret: true,
  }),
  route('DELETE', '/api/v1/me/token', 'functions/me/revoke-token.ts', {
    id: 'revokeToken',
    summary: 'Revoke the API token',
    tag: 'Accounts',
    success: { status: 204, description: 'Revoked' },
  }),
  // Import from another tracker, as a background job (docs/import-export.md; admins only)
  route('POST', '/api/v1/imports', 'functions/imports.ts', {
    id: 'createImportJob',
    summary:
      'Import issues from a Jira CSV export or GitHub issues JSON into a project, or an export file into the organisation, in the background (admins only)',
    description:
      'The body is the file itself (`text/csv` for `jira-csv`, `application/json` for `github-json`, `application/x-ndjson` for `export`), ' +
      'or, for any format, the file with its mapping (people, statuses, types, priorities, time zone) as `application/json`: ' +
      '`{"file": "<the file as text>", "mapping": {…}}`. At most 6 MB ' +
      "(Lambda's synchronous payload limit, below API Gateway's 10 MB; larger files: `npm run admin -- import`). " +
      'The file is checked whole before anything is written. Answers the job at once; `GET /imports/{job_id}` shows its progress ' +
      'and, when done, its report (every source key with its issue key here). ' +
      'Importing the same file again creates nothing twice (issues are keyed by their source key).',
    tag: 'Imports',
    query: ImportJobQuery,
    body: ImportFileBody,
    bodyMediaType: 'text/csv',
    bodies: { 'text/csv': ImportFileBody, 'application/json': ImportJsonBody, 'application/x-ndjson': ImportFileBody },
    success: { status: 202, schema: ImportJob, description: 'The job, queued' },
    errors: [403, 404],
  }),
  route('GET', '/api/v1/imports/{job_id}', 'functions/imports.ts', {
    id: 'getImportJob',
    summary: 'An import job: its status, progress and report (admins only)',
    tag: 'Imports',
    success: { status: 200, schema: ImportJob, description: 'The job' },
    errors: [403],
  }),
  route('GET', '/api/v1/export', 'functions/export.ts', {
    id: 'exportOrganisation',
    summary: "A page of the organisation's export, as JSON Lines (admins only)",
    description:
      'The export file of `npm run admin -- export` (docs/import-export.md), a page at a time: the header line on the first page, ' +
      'the `end` line on the last. While more remains, `Link: <…?cursor=…>; rel="next"` names the next page; the pages, ' +
      'concatenated, are the file. A page ends after 2 MiB, after `per_page` lines, or after 40 DynamoDB calls. ' +
      'Never in it: tokens, webhook endpoints and secrets, OAuth data. `include_trash=true`: the trash too (before the `end` line, a `trash` line per trashed item and a `trash_content` line per thing a trashed project, sprint or issue holds), which an import skips.',
    tag: 'Imports',
    query: ExportQuery,
    success: { status: 200, schema: ExportLines, mediaType: 'application/x-ndjson', description: 'A page of the export' },
    errors: [403],
  }),

  route('GET', '/api/v1/accounts', 'functions/accounts/list.ts', {
    id: 'listAccounts',
    summary: "List the organisation's accounts",
    tag: 'Accounts',
    success: { status: 200, schema: Account, list: true, description: 'Accounts' },
  }),
  route('POST', '/api/v1/accounts', 'functions/accounts/create.ts', {
    id: 'createAccount',
    summary: 'Create an account (admins only); returns its first token once',
    tag: 'Accounts',
    body: AccountCreateBody,
    success: { status: 201, schema: AccountWithToken, description: 'The account and its token' },
    secret: true,
    errors: [403],
  }),

  // Projects
  route('GET', '/api/v1/projects', 'functions/projects/read.ts', {
    id: 'listProjects',
    summary: 'List all projects in the organisation',
    tag: 'Projects',
    success: { status: 200, schema: Project, list: true, description: 'Projects' },
  }),
  route('POST', '/api/v1/projects', 'functions/projects/create.ts', {
    id: 'createProject',
    summary: 'Create a project',
    tag: 'Projects',
    body: ProjectCreateBody,
    success: { status: 201, schema: Project, description: 'The project' },
    idempotent: true,
  }),
  route('GET', projectPath, 'functions/projects/read.ts', {
    id: 'getProject',
    summary: 'Retrieve a project',
    tag: 'Projects',
    success: { status: 200, schema: Project, description: 'The project' },
  }),
  ...patchAndPut(projectPath, 'functions/projects/update.ts', {
    id: 'updateProject',
    summary: 'Update a project',
    tag: 'Projects',
    body: ProjectUpdateBody,
    success: { status: 200, schema: Project, description: 'The project' },
  }),
  route('DELETE', projectPath, 'functions/projects/delete.ts', {
    id: 'deleteProject',
    summary: 'Delete a project with its sprints, issues and comments into the trash, until it is restored (admins only)',
    tag: 'Projects',
    success: { status: 204, description: 'Deleted' },
    errors: [403],
  }),

  // The project's label catalogue (issues show its current spelling: docs/api.md, Labels)
  route('GET', `${projectPath}/labels`, 'functions/labels/read.ts', {
    id: 'listLabels',
    summary: "List a project's labels, in creation order",
    tag: 'Labels',
    success: { status: 200, schema: Label, list: true, description: 'Labels' },
  }),
  route('POST', `${projectPath}/labels`, 'functions/labels/create.ts', {
    id: 'createLabel',
    summary: 'Create a label (name unique in the project ignoring case; at most 200 per project)',
    tag: 'Labels',
    body: LabelCreateBody,
    success: { status: 201, schema: Label, description: 'The label' },
    idempotent: true,
  }),
  route('GET', labelPath, 'functions/labels/read.ts', {
    id: 'getLabel',
    summary: 'Retrieve a label',
    tag: 'Labels',
    success: { status: 200, schema: Label, description: 'The label' },
  }),
  ...patchAndPut(labelPath, 'functions/labels/update.ts', {
    id: 'updateLabel',
    summary: 'Update a label; every issue carrying it shows its new name and colour at once',
    tag: 'Labels',
    body: LabelUpdateBody,
    success: { status: 200, schema: Label, description: 'The label' },
  }),
  route('DELETE', labelPath, 'functions/labels/delete.ts', {
    id: 'deleteLabel',
    summary: 'Delete a label into the trash; no issue shows it from then on, until it is restored',
    tag: 'Labels',
    success: { status: 204, description: 'Deleted' },
  }),

  // The project's custom fields: typed values every issue of it carries (docs/custom-fields.md)
  route('GET', `${projectPath}/fields`, 'functions/custom-fields/read.ts', {
    id: 'listCustomFields',
    summary: "List a project's custom fields, in creation order (at most 30: one page)",
    tag: 'Custom fields',
    success: { status: 200, schema: CustomFieldList, description: 'Custom fields, in creation order' },
  }),
  route('POST', `${projectPath}/fields`, 'functions/custom-fields/create.ts', {
    id: 'createCustomField',
    summary: 'Create a custom field (admins only; name and key unique in the project ignoring case)',
    tag: 'Custom fields',
    body: FieldCreateBody,
    success: { status: 201, schema: CustomField, description: 'The field' },
    errors: [403],
    idempotent: true,
  }),
  route('GET', fieldPath, 'functions/custom-fields/read.ts', {
    id: 'getCustomField',
    summary: 'Retrieve a custom field',
    tag: 'Custom fields',
    success: { status: 200, schema: CustomField, description: 'The field' },
  }),
  ...patchAndPut(fieldPath, 'functions/custom-fields/update.ts', {
    id: 'updateCustomField',
    summary: 'Update a custom field (admins only): its name, description, required flag or options; issues show a rename at once',
    tag: 'Custom fields',
    body: FieldUpdateBody,
    success: { status: 200, schema: CustomField, description: 'The field' },
    errors: [403],
  }),
  route('DELETE', fieldPath, 'functions/custom-fields/delete.ts', {
    id: 'deleteCustomField',
    summary:
      'Delete a custom field (admins only); no issue shows it from then on, and its values are taken off in the background',
    tag: 'Custom fields',
    success: { status: 204, description: 'Deleted' },
    errors: [403],
  }),

  // The project's workflow: its states, each in one of five fixed categories (docs/workflows.md)
  route('GET', `${projectPath}/states`, 'functions/workflow-states/read.ts', {
    id: 'listStates',
    summary: "List a project's workflow states, in board order (at most 50: one page)",
    tag: 'States',
    success: { status: 200, schema: StateList, description: 'States, in board order' },
  }),
  route('POST', `${projectPath}/states`, 'functions/workflow-states/create.ts', {
    id: 'createState',
    summary: 'Create a state in one of the five categories (name unique in the project ignoring case, spaces and punctuation)',
    tag: 'States',
    body: StateCreateBody,
    success: { status: 201, schema: State, description: 'The state' },
    idempotent: true,
  }),
  route('GET', statePath, 'functions/workflow-states/read.ts', {
    id: 'getState',
    summary: 'Retrieve a state',
    tag: 'States',
    success: { status: 200, schema: State, description: 'The state' },
  }),
  ...patchAndPut(statePath, 'functions/workflow-states/update.ts', {
    id: 'updateState',
    summary: 'Update a state (name, colour, order, WIP limit); every issue in it shows the change at once',
    tag: 'States',
    body: StateUpdateBody,
    success: { status: 200, schema: State, description: 'The state' },
  }),
  route('DELETE', statePath, 'functions/workflow-states/delete.ts', {
    id: 'deleteState',
    summary:
      'Delete a state; while it has issues, `move_to` names the state they move to (they show it at once, and are rewritten in the background)',
    tag: 'States',
    query: StateDeleteQuery,
    success: { status: 204, description: 'Deleted' },
  }),

  // The board of a sprint and of the backlog: a column per state, from counters the writes keep
  route('GET', `${sprintPath}/board`, 'functions/board/read.ts', {
    id: 'getSprintBoard',
    summary: "A sprint's board: a column per state in board order, with its count, story points, WIP limit and first issues",
    tag: 'States',
    query: BoardQuery,
    success: { status: 200, schema: Board, description: 'The board' },
  }),
  route('GET', `${projectPath}/backlog/board`, 'functions/board/read.ts', {
    id: 'getBacklogBoard',
    summary: "The backlog's board: a column per state in board order, with its count, story points, WIP limit and first issues",
    tag: 'States',
    query: BoardQuery,
    success: { status: 200, schema: Board, description: 'The board' },
  }),

  // Comments: on an issue of a sprint and on an issue of the backlog, then by id
  ...sprintIssueComments,
  ...backlogIssueComments,
  route('GET', commentPath, 'functions/comments/read.ts', {
    id: 'getComment',
    summary: 'Retrieve a comment',
    tag: 'Comments',
    success: { status: 200, schema: Comment, description: 'The comment' },
  }),
  ...patchAndPut(commentPath, 'functions/comments/update.ts', {
    id: 'updateComment',
    summary: 'Update a comment (its author only)',
    putSummary: 'Update a comment (its author only; PUT spelling, same partial-update meaning)',
    tag: 'Comments',
    body: CommentUpdateBody,
    success: { status: 200, schema: Comment, description: 'The comment' },
    errors: [403],
  }),
  route('DELETE', commentPath, 'functions/comments/delete.ts', {
    id: 'deleteComment',
    summary:
      'Delete a comment (its author only) into the trash with its attachments; its issue no longer shows or counts them, until it is restored',
    tag: 'Comments',
    success: { status: 204, description: 'Deleted' },
    errors: [403],
  }),

  // Sprints and their lifecycle
  route('GET', `${projectPath}/sprints`, 'functions/sprints/read.ts', {
    id: 'listSprints',
    summary: "List a project's sprints",
    tag: 'Sprints',
    success: { status: 200, schema: Sprint, list: true, description: 'Sprints, in creation order' },
  }),
  route('POST', `${projectPath}/sprints`, 'functions/sprints/create.ts', {
    id: 'createSprint',
    summary: 'Create a sprint (status planning)',
    tag: 'Sprints',
    body: SprintCreateBody,
    success: { status: 201, schema: Sprint, description: 'The sprint' },
    idempotent: true,
  }),
  route('GET', sprintPath, 'functions/sprints/read.ts', {
    id: 'getSprint',
    summary: 'Retrieve a sprint with its story point statistics',
    tag: 'Sprints',
    success: { status: 200, schema: Sprint, description: 'The sprint' },
  }),
  ...patchAndPut(sprintPath, 'functions/sprints/update.ts', {
    id: 'updateSprint',
    summary: 'Update a sprint',
    tag: 'Sprints',
    body: SprintUpdateBody,
    success: { status: 200, schema: Sprint, description: 'The sprint' },
  }),
  route('DELETE', sprintPath, 'functions/sprints/delete.ts', {
    id: 'deleteSprint',
    summary: 'Delete a sprint with its issues and their comments into the trash, until it is restored (admins only)',
    tag: 'Sprints',
    success: { status: 204, description: 'Deleted' },
    errors: [403, 409],
  }),
  ...transition(
    sprintPath,
    'functions/sprints/activate.ts',
    { verb: 'activate', noun: 'activation' },
    {
      id: 'activateSprint',
      action: 'Activate a sprint',
      summary: ': planning to active (start_date defaults to today)',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The active sprint' },
    },
  ),
  ...transition(
    sprintPath,
    'functions/sprints/complete.ts',
    { verb: 'complete', noun: 'completion' },
    {
      id: 'completeSprint',
      action: 'Complete a sprint',
      summary: ': active to completed; its open issues go to the backlog or to `carry_over.sprint_id`',
      description:
        'All or nothing at any size: the sprint shows `completing` while its open issues move, and any completion ' +
        'request on a `completing` sprint finishes it (409 if it asked for another target). See docs/sprint-outcomes.md.',
      tag: 'Sprints',
      body: SprintCompleteBody,
      optionalBody: true,
      unprocessable: 'either',
      success: { status: 200, schema: Sprint, description: 'The completed sprint, with its report' },
    },
  ),
  route('GET', `${sprintPath}/report`, 'functions/sprints/read.ts', {
    id: 'getSprintReport',
    summary: 'The report of a completed sprint, frozen at its completion (404 before)',
    tag: 'Sprints',
    success: { status: 200, schema: SprintReport, description: 'The report' },
  }),
  route('GET', `${sprintPath}/burndown`, 'functions/sprints/read.ts', {
    id: 'getSprintBurndown',
    summary: 'Remaining open story points at the end of each UTC day, with the ideal line (404 in planning)',
    tag: 'Sprints',
    success: { status: 200, schema: Burndown, description: 'The burndown' },
  }),
  route('GET', `${projectPath}/velocity`, 'functions/projects/read.ts', {
    id: 'getVelocity',
    summary: 'The last completed sprints (`sprints`, default 6, at most 50) with committed and completed points',
    tag: 'Sprints',
    query: VelocityQuery,
    success: { status: 200, schema: Velocity, description: 'Velocity' },
    unprocessable: 'errors',
  }),

  // An issue by its key, wherever it lives
  route('GET', issueKeyPath, 'functions/issue-keys/get.ts', {
    id: 'getIssueByKey',
    summary: 'Retrieve an issue by its key (`APL-42`, any case), in a sprint or in the backlog',
    tag: 'Issues',
    success: { status: 200, schema: Issue, description: 'The issue, with its project_id and sprint_id' },
  }),
  // Writes, comments and activity by key: as the issue's list's path answers them, wherever it lives now.
  ...patchAndPut(issueKeyPath, 'functions/issue-keys/update.ts', {
    id: 'updateIssueByKey',
    summary: 'Update an issue by its key, wherever it lives; `position` reorders it, `sprint_id` moves it (null: to the backlog)',
    putSummary: `Update an issue by its key ${PUT_SPELLING}`,
    tag: 'Issues',
    body: IssueUpdateBody,
    success: { status: 200, schema: Issue, description: 'The issue' },
    errors: [409],
  }),
  route('DELETE', issueKeyPath, 'functions/issue-keys/delete.ts', {
    id: 'deleteIssueByKey',
    summary: 'Delete an issue by its key into the trash, with its comments, activity and attachments, until it is restored',
    tag: 'Issues',
    success: { status: 204, description: 'Deleted' },
    errors: [409],
  }),
  route('GET', `${issueKeyPath}/comments`, 'functions/comments/read.ts', {
    id: 'listIssueCommentsByKey',
    summary: "List an issue's comments by its key, in creation order",
    tag: 'Comments',
    success: { status: 200, schema: Comment, list: true, description: 'Comments, oldest first' },
  }),
  route('POST', `${issueKeyPath}/comments`, 'functions/comments/create.ts', {
    id: 'createIssueCommentByKey',
    summary: 'Comment on an issue by its key; the author is the owner of the token',
    tag: 'Comments',
    body: CommentCreateBody,
    success: { status: 201, schema: Comment, description: 'The comment' },
    idempotent: true,
  }),
  route('GET', `${issueKeyPath}/activity`, 'functions/activity/read.ts', {
    id: 'listIssueActivityByKey',
    summary: "An issue's activity by its key: its creation, each changed field (from, to), comments; with actor and time",
    tag: 'Activity',
    success: { status: 200, schema: Activity, list: true, description: 'Activity, oldest first' },
  }),
  route('GET', '/api/v1/issues/{issue_key}/sub_issues', 'functions/issue-keys/sub-issues.ts', {
    id: 'listSubIssues',
    summary: "List an issue's sub-issues (its direct children), in creation order",
    tag: 'Issues',
    success: { status: 200, schema: SubIssue, list: true, description: 'Sub-issues, oldest first' },
  }),
  // Attachments of an issue and its comments, by the issue's key (docs/attachments.md)
  route('POST', attachmentsPath, 'functions/attachments/create.ts', {
    id: 'createAttachment',
    summary: 'Declare a file on an issue (or one of its comments) and get a pre-signed form to upload it to S3',
    description:
      'Answers the attachment, `pending`, with `upload`: a pre-signed S3 POST form bound to the declared name, ' +
      'content type, exact size and SHA-256 (if given), valid for minutes. Post `upload.fields` and then the file ' +
      '(as `file`, last) to `upload.url` as multipart/form-data, then call `…/complete`. 422 for a type outside the ' +
      'allow-list, a file over the size limit, an issue at its most files, or an organisation at its most bytes; ' +
      '429 `{error}` (with `Retry-After`) while the caller, or its organisation, has as many declarations pending ' +
      '(not completed) as it may. The form is for this declaration only: a file posted after its `complete`, or ' +
      'after its delete, is never used. ' +
      "403 for a member's file on someone else's comment: a comment's files are added by its author or an admin.",
    tag: 'Attachments',
    body: AttachmentCreateBody,
    success: { status: 201, schema: AttachmentWithUpload, description: 'The pending attachment and its upload form' },
    errors: [403],
    idempotent: true,
  }),
  route('GET', attachmentsPath, 'functions/attachments/read.ts', {
    id: 'listAttachments',
    summary:
      "An issue's attachments (its comments' included, not those of a comment in the trash), oldest first, each ready one with a short-lived download URL",
    tag: 'Attachments',
    success: { status: 200, schema: AttachmentList, description: 'Attachments, oldest first; not paged' },
  }),
  route('GET', `${attachmentsPath}/{attachment_id}`, 'functions/attachments/read.ts', {
    id: 'downloadAttachment',
    summary: 'Redirect to a fresh pre-signed download URL of a ready attachment (422 `{error}` while pending)',
    tag: 'Attachments',
    success: { status: 302, description: 'To the file, on S3 (a URL valid for minutes)' },
    unprocessable: 'either',
  }),
  route('POST', `${attachmentsPath}/{attachment_id}/complete`, 'functions/attachments/complete.ts', {
    id: 'completeAttachment',
    summary: 'Check the uploaded file (size, type, SHA-256 as S3 holds them) and make the attachment ready',
    tag: 'Attachments',
    success: { status: 200, schema: Attachment, description: 'The ready attachment' },
    unprocessable: 'either',
  }),
  route('DELETE', `${attachmentsPath}/{attachment_id}`, 'functions/attachments/delete.ts', {
    id: 'deleteAttachment',
    summary: 'Delete an attachment: a ready one into the trash (its file kept until its purge), a pending one for good',
    description:
      'Allowed to its uploader, the author of its comment (for a file of a comment) and admins: 403 for anyone else. ' +
      'A ready attachment goes into the trash (`attachment-{id}`, docs/trash.md), restored with its file by ' +
      '`POST /api/v1/trash/{trash_id}/restore`; its purge removes its file from S3.',
    tag: 'Attachments',
    success: { status: 204, description: 'Deleted' },
    errors: [403],
  }),
  // Relations between issues of the organisation, by the issues' keys (docs/api.md#relations)
  route('GET', '/api/v1/issues/{issue_key}/relations', 'functions/relations/list.ts', {
    id: 'listIssueRelations',
    summary: "An issue's relations (at most 50, oldest first), each with its type as this issue sees it",
    tag: 'Relations',
    success: { status: 200, schema: RelationList, description: 'Relations, oldest first; not paged' },
  }),
  route('POST', '/api/v1/issues/{issue_key}/relations', 'functions/relations/create.ts', {
    id: 'createIssueRelation',
    summary: 'Relate an issue to another issue of the organisation; the other shows the inverse type',
    description:
      'One relation of each kind (blocking, duplication, relating) between two issues, at most 50 relations per ' +
      'issue, none to itself: 422 otherwise, and for an `issue_key` that names no issue of the organisation. ' +
      'A `blocks` relation makes the blocked issue `blocked: true` while the blocker is not done or cancelled.',
    tag: 'Relations',
    body: RelationCreateBody,
    success: { status: 201, schema: Relation, description: 'The relation, as the issue of the path sees it' },
    idempotent: true,
  }),
  route('DELETE', '/api/v1/issues/{issue_key}/relations/{relation_id}', 'functions/relations/delete.ts', {
    id: 'deleteIssueRelation',
    summary: 'Remove a relation from both of its issues (from either side)',
    tag: 'Relations',
    success: { status: 204, description: 'Removed' },
  }),

  // Issues in a sprint
  ...sprintIssues,

  // The project backlog (issues in no sprint)
  ...backlogIssues,

  // Activity: who changed what, oldest first (written from the table's stream, see docs/change-feed.md)
  ...sprintIssueActivity,
  ...backlogIssueActivity,
  route('GET', `${sprintPath}/activity`, 'functions/activity/read.ts', {
    id: 'listSprintActivity',
    summary: "A sprint's activity: its activation and completion, with actor and time",
    tag: 'Activity',
    success: { status: 200, schema: Activity, list: true, description: 'Activity, oldest first' },
  }),
  route('POST', '/api/v1/activity/{activity_id}/revert', 'functions/activity/revert.ts', {
    id: 'revertActivity',
    summary:
      'Revert one change of an issue (an entry of its activity) while the fields it changed still hold the values it wrote',
    description:
      'Puts back the values the entry replaced, through the same write as a PATCH of the issue (fields, state, a move, ' +
      "labels, the parent) or a relation's removal or creation, so everything derived follows; the change is recorded as " +
      "an `issue.updated` entry with `reverts` (itself revertible). `If-Match` takes the issue's ETag. 409 names the " +
      'fields changed since, with their values now; 422 says why an entry is not revertible (a creation, a comment, ' +
      "a reorder, a sprint's transition, a description changed before descriptions were kept) or what the workflow refuses, as a PATCH would (docs/activity.md).",
    tag: 'Activity',
    success: { status: 200, schema: Issue, description: 'The issue, as the revert left it' },
    conflict: {
      schema: RevertConflict,
      description:
        'Fields the entry changed hold other values now (`changed`, each with its value): nothing was written. ' +
        "Or (`{error}` with `Retry-After`) the issue's sprint is being completed.",
      retryAfter: 'Only on the `{error}` of a sprint being completed.',
    },
    conditional: true,
    errors: [409, 422],
    unprocessable: 'either',
  }),

  // Webhooks (admins only): signed deliveries of changes, retried (docs/change-feed.md)
  route('GET', '/api/v1/webhooks', 'functions/webhooks/read.ts', {
    id: 'listWebhooks',
    summary: "List the organisation's webhook endpoints (admins only)",
    tag: 'Webhooks',
    success: { status: 200, schema: Webhook, list: true, description: 'Endpoints, in creation order' },
    errors: [403],
  }),
  // Secret-bearing answers never honour Idempotency-Key: a replay would have to store the secret.
  route('POST', '/api/v1/webhooks', 'functions/webhooks/create.ts', {
    id: 'createWebhook',
    summary: 'Register a webhook endpoint (admins only); returns its signing secret once',
    tag: 'Webhooks',
    body: WebhookCreateBody,
    success: { status: 201, schema: WebhookWithSecret, description: 'The endpoint and its secret' },
    secret: true,
    errors: [403],
  }),
  route('GET', webhookPath, 'functions/webhooks/read.ts', {
    id: 'getWebhook',
    summary: 'Retrieve a webhook endpoint (admins only)',
    tag: 'Webhooks',
    success: { status: 200, schema: Webhook, description: 'The endpoint' },
    errors: [403],
  }),
  ...patchAndPut(webhookPath, 'functions/webhooks/update.ts', {
    id: 'updateWebhook',
    summary: 'Update a webhook endpoint (admins only); `active: true` re-enables a disabled one',
    tag: 'Webhooks',
    body: WebhookUpdateBody,
    success: { status: 200, schema: Webhook, description: 'The endpoint' },
    errors: [403],
  }),
  route('DELETE', webhookPath, 'functions/webhooks/delete.ts', {
    id: 'deleteWebhook',
    summary: 'Delete a webhook endpoint (admins only) into the trash; its pending deliveries are cancelled',
    tag: 'Webhooks',
    success: { status: 204, description: 'Deleted' },
    errors: [403],
  }),
  route('POST', `${webhookPath}/secret`, 'functions/webhooks/rotate-secret.ts', {
    id: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret (admins only); the new one is shown once, the old one signs for 24 hours more',
    tag: 'Webhooks',
    success: { status: 200, schema: WebhookWithSecret, description: 'The endpoint and its new secret' },
    secret: true,
    errors: [403],
  }),
  route('GET', `${webhookPath}/deliveries`, 'functions/webhooks/read.ts', {
    id: 'listWebhookDeliveries',
    summary: "An endpoint's 100 most recent deliveries, newest first (admins only)",
    tag: 'Webhooks',
    success: { status: 200, schema: DeliveryList, description: 'Deliveries, newest first' },
    errors: [403],
  }),
  route('POST', `${webhookPath}/deliveries/{delivery_id}/redeliver`, 'functions/webhooks/redeliver.ts', {
    id: 'redeliverWebhookDelivery',
    summary: 'Send a finished delivery again, same webhook-id and body (admins only); 422 while it is pending',
    tag: 'Webhooks',
    success: { status: 200, schema: Delivery, description: 'The delivery, pending again' },
    errors: [403, 422],
    unprocessable: 'error',
  }),

  // GitHub: a project's repository, its receiver, and the links it makes (docs/github.md)
  route('GET', githubPath, 'functions/github/read.ts', {
    id: 'getGitHubConnection',
    summary: "The project's GitHub repository, its payload URL, events and status automation (admins only)",
    tag: 'GitHub',
    success: { status: 200, schema: GitHubConnection, description: 'The connection; 404 when the project has none' },
    errors: [403],
  }),
  // Secret-bearing answers never honour Idempotency-Key: a replay would have to store the secret.
  route('PUT', githubPath, 'functions/github/connect.ts', {
    id: 'connectGitHubRepository',
    summary:
      'Connect a GitHub repository to the project, or change its status automation (admins only); a new connection answers its webhook secret once',
    tag: 'GitHub',
    body: GitHubConnectBody,
    // A connection has no version: its secret and settings are the repository's, not an ETag's.
    conditional: false,
    success: {
      status: 200,
      schema: GitHubConnectAnswer,
      description: 'The connection; its secret only when this request made it',
    },
    secret: true,
    errors: [403, 409],
  }),
  route('DELETE', githubPath, 'functions/github/disconnect.ts', {
    id: 'disconnectGitHubRepository',
    summary: "Disconnect the project's repository (admins only); its links stay on the issues",
    conditional: false,
    tag: 'GitHub',
    success: { status: 204, description: 'Disconnected' },
    errors: [403],
  }),
  route('POST', `${githubPath}/secret`, 'functions/github/rotate-secret.ts', {
    id: 'rotateGitHubSecret',
    summary: "Rotate the repository's webhook secret (admins only); the new one is shown once and signs from now on",
    tag: 'GitHub',
    success: { status: 200, schema: GitHubConnectionWithSecret, description: 'The connection and its new secret' },
    secret: true,
    errors: [403],
  }),
  route(
    'POST',
    '/api/v1/integrations/github',
    'functions/github/receive.ts',
    {
      id: 'receiveGitHubDelivery',
      summary:
        "GitHub's webhook deliveries: signed with the repository's secret (`X-Hub-Signature-256`), once per `X-GitHub-Delivery`",
      description:
        'Public: no token. The signature is checked first, in constant time: a bad or missing one is 401 and writes nothing. ' +
        '`ping` is answered 202 `pong`. Any other event of a connected repository is stored once and answered 202; the links and ' +
        'status moves follow within seconds. An event of a repository no project connects is answered 202 and ignored. ' +
        "Bodies over GitHub's own cap (25 MB) are 413.",
      tag: 'GitHub',
      body: GitHubDeliveryBody,
      headers: GitHubDeliveryHeaders,
      success: { status: 202, schema: GitHubDeliveryAnswer, description: 'Accepted (or ignored), or a ping answered' },
      errors: [400, 401, 413, 415],
    },
    { auth: false, receiver: true },
  ),
  route('GET', `${issueKeyPath}/links`, 'functions/issue-keys/links.ts', {
    id: 'listIssueLinks',
    summary: 'The pull requests, branches and commits on GitHub that name the issue, with their state; newest first',
    tag: 'GitHub',
    success: { status: 200, schema: IssueLink, list: true, description: 'Links, the latest changed first' },
  }),

  // The organisation's trash (admins all of it, members what they deleted): deleted items kept for the retention period, restorable whole (docs/trash.md)
  route('GET', '/api/v1/trash', 'functions/trash/read.ts', {
    id: 'listTrash',
    summary: "List the organisation's trash, newest deletion first (admins all of it, members what they deleted)",
    description:
      'Items past their retention are left out (the TTL removes them some time later): the list is linked by cursor, and `X-Total-Count` counts the items up to this page.',
    tag: 'Trash',
    query: TrashQuery,
    success: { status: 200, schema: TrashEntry, list: true, description: 'Trashed items, newest deletion first' },
  }),
  route('GET', trashPath, 'functions/trash/read.ts', {
    id: 'getTrashItem',
    summary: "One trashed item (a member's own), with the ETag that a purge may name in If-Match",
    tag: 'Trash',
    success: { status: 200, schema: TrashEntry, description: 'The trashed item' },
  }),
  route('POST', `${trashPath}/restore`, 'functions/trash/restore.ts', {
    id: 'restoreTrashItem',
    summary: "Bring a trashed item (a member's own) back whole, with the same id; 422 when it cannot come back as it was",
    tag: 'Trash',
    description:
      'A sprint or a project comes back with its issues, which are put back in the background: the answer is 202 with the item as it will be and `Location`, its trash item, ' +
      'which shows the progress (`issues_returned` of `issues_total`) until it is back (404 then; the sprint or project answers). ' +
      '409 with `Retry-After` while its issues are still being moved into the trash.',
    success: { status: 200, schema: Restored, description: 'The kind of item and the item, as its own route answers it' },
    accepted: { description: 'A sprint or a project: its restore began; `Location` shows its progress', schema: RestoreStarted },
    errors: [409, 422],
    unprocessable: 'error',
  }),
  route('DELETE', trashPath, 'functions/trash/delete.ts', {
    id: 'purgeTrashItem',
    summary: 'Delete a trashed item for good (admins only); If-Match names its ETag',
    description: '409 while a sprint or a project is being restored.',
    tag: 'Trash',
    success: { status: 204, description: 'Purged' },
    errors: [403, 409],
  }),

  // OAuth 2.1 for /mcp: discovery, registration, the approval page, tokens, revocation (docs/mcp.md)
  oauth('GET', '/.well-known/oauth-protected-resource', 'functions/oauth.ts', {
    id: 'getOAuthProtectedResource',
    summary: 'RFC 9728 metadata of /mcp: its authorization server and scopes (read, write, delete)',
    success: { status: 200, schema: OAuthMetadata, description: 'The metadata' },
    errors: [422],
  }),
  // RFC 9728 §3.1's location for /mcp (the well-known prefix before the resource's path), which
  // the WWW-Authenticate challenge names (lib/http/gateway-responses.ts); the root one stays for
  // clients that look there.
  oauth('GET', '/.well-known/oauth-protected-resource/mcp', 'functions/oauth.ts', {
    id: 'getOAuthProtectedResourceOfMcp',
    summary: 'RFC 9728 metadata of /mcp at its path-aware location (the same document)',
    success: { status: 200, schema: OAuthMetadata, description: 'The metadata' },
    errors: [422],
  }),
  oauth('GET', '/.well-known/oauth-authorization-server', 'functions/oauth.ts', {
    id: 'getOAuthAuthorizationServer',
    summary: 'RFC 8414 metadata of the authorization server: its endpoints; PKCE S256, public clients',
    success: { status: 200, schema: OAuthMetadata, description: 'The metadata' },
    errors: [422],
  }),
  oauth('POST', '/oauth/register', 'functions/oauth.ts', {
    id: 'registerOAuthClient',
    summary: 'RFC 7591 dynamic registration of a public client (redirect URIs: https, or http on 127.0.0.1 / [::1])',
    body: OAuthClientRegistrationBody,
    success: { status: 201, schema: OAuthClientInformation, description: 'The client' },
    errors: [400, 422, 429],
  }),
  oauth(
    'GET',
    '/oauth/authorize',
    'functions/oauth.ts',
    {
      id: 'getOAuthAuthorization',
      summary: 'The approval page (HTML): the client, the scopes asked, a field for the API token; approve or deny',
      description:
        'Takes `response_type=code`, `client_id`, `redirect_uri`, `code_challenge` with `code_challenge_method=S256`, ' +
        '`scope`, `state` and `resource`; other parameters are ignored. A request the client may hear of is refused ' +
        'by a 302 to its redirect URI (`error`, `state`, `iss`); one naming an unknown client or redirect URI is a 400 page.',
      lenientQuery: true,
      success: { status: 200, schema: OAuthPage, mediaType: 'text/html', description: 'The page' },
      errors: [302, 400],
    },
    true,
  ),
  oauth(
    'POST',
    '/oauth/authorize',
    'functions/oauth.ts',
    {
      id: 'answerOAuthAuthorization',
      summary: "The page's answer: 302 to the client's redirect URI with a code (approved) or access_denied",
      lenientQuery: true,
      body: OAuthApprovalForm,
      bodyMediaType: form,
      success: { status: 302, description: 'Back to the client' },
      errors: [400, 401, 403, 429],
    },
    true,
  ),
  oauth('POST', '/oauth/token', 'functions/oauth.ts', {
    id: 'getOAuthToken',
    summary:
      'An access token (1 hour, /mcp only) and a rotating refresh token, for a code and its PKCE verifier or a refresh token',
    body: OAuthTokenForm,
    bodyMediaType: form,
    success: { status: 200, schema: OAuthTokens, description: 'The tokens' },
    errors: [400, 422],
  }),
  oauth('POST', '/oauth/revoke', 'functions/oauth.ts', {
    id: 'revokeOAuthToken',
    summary: 'RFC 7009: an access or refresh token ends its grant (both tokens); 200 whether or not it was known',
    body: OAuthRevokeForm,
    bodyMediaType: form,
    success: { status: 200, description: 'Revoked, or nothing to revoke' },
    errors: [400, 422],
  }),

  // MCP server (Streamable HTTP, stateless, JSON responses; the same bearer token and rate limit)
  route('POST', '/mcp', 'functions/mcp.ts', {
    id: 'mcp',
    summary: 'Model Context Protocol: one JSON-RPC message per request (202, no body, for a notification)',
    tag: 'MCP',
    query: McpQuery,
    body: McpMessage,
    jsonRpc: true,
    headers: McpRequestHeaders,
    success: { status: 200, schema: McpMessage, description: 'The JSON-RPC response' },
    accepted: 'The message was a notification or a response: accepted, no body',
    errors: [403, 406],
  }),
  // Answered by the same function (always 405), which reads nothing.
  route(
    'GET',
    '/mcp',
    'functions/mcp.ts',
    notOffered('mcpStream', 'Not offered: the MCP server is stateless and opens no server-initiated stream (405)'),
  ),
  route(
    'DELETE',
    '/mcp',
    'functions/mcp.ts',
    notOffered('mcpEndSession', 'Not offered: the MCP server is stateless and has no session to end (405)'),
    { access: 'read' },
  ),
];

/** Status codes every authenticated route may answer. */
export const commonErrors = [401, 429, 500, 503];

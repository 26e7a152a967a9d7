/**
 * THE route table: the table of contents of the API. The local gateway, the CDK stack (one Lambda
 * and one API Gateway method per row), the OpenAPI document and the MCP tool list are all built
 * from it. Adding an endpoint is one row here plus one handler file.
 */
import type { z } from 'zod';
import { Account, AccountCreateBody, AccountWithToken, Me, TokenBody } from './schemas/accounts.ts';
import { OpenApiDocumentJson, OpenApiDocumentYaml } from './schemas/api-docs.ts';
import { Comment, CommentCreateBody, CommentUpdateBody } from './schemas/comments.ts';
import { Issue, IssueCreateBody, IssueListQuery, IssueUpdateBody } from './schemas/issues.ts';
import { McpMessage } from './schemas/mcp.ts';
import { Project, ProjectCreateBody, ProjectUpdateBody } from './schemas/projects.ts';
import { Sprint, SprintCreateBody, SprintUpdateBody } from './schemas/sprints.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** API Gateway resource path, `{name}` for path parameters. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /** Behind the token authorizer (and its rate limit). */
  auth: boolean;
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
    body?: z.ZodType;
    /** Query parameters, beyond the `page`/`per_page`/`cursor` that every list takes. */
    query?: z.ZodObject;
    /**
     * Success status and body; `list` means a paginated JSON array of `schema`. `mediaType` is
     * that of `schema` (default `application/json`).
     */
    success: { status: 200 | 201 | 204; schema?: z.ZodType; list?: boolean; description: string; mediaType?: string };
    /** Other statuses (errors, 304) this operation may answer, beyond those every authenticated route has. */
    errors: number[];
    /**
     * Body of a 422: `errors` (`{errors}`, validation), `error` (`{error}`, a refused transition)
     * or `either`. Default: `errors` for routes that take a body or list, else `error`.
     */
    unprocessable?: 'errors' | 'error' | 'either';
    /**
     * A POST that honours `Idempotency-Key` (`lib/http/idempotency.ts`): the same key and body replay
     * the first response, another body is 422, a malformed key 400, 409 while the first still runs.
     */
    idempotent?: boolean;
  };
}

const idParam = '{id}';

const filteredListDescription =
  'Filters combine with AND; `position` stays the place in the whole list. A filtered page looks through ' +
  'at most 1,000 issues of the list from where the previous page stopped and returns the matches among them ' +
  '(possibly fewer than `per_page`, even none, with a `next` link while there is more to look through). ' +
  'Filtered pages are followed by their `next` link (`page` > 1 without its cursor is 422); `X-Total-Count` ' +
  'counts the matches up to where the page stopped looking, and is the total once there is no `next` link.';

export const routes: Route[] = [
  // The OpenAPI document of this API (no auth; rendered at build time by `npm run openapi`)
  {
    method: 'GET',
    path: '/api-docs/v1/swagger.yaml',
    handler: 'functions/api-docs.ts',
    auth: false,
    access: 'read',
    operation: {
      id: 'getOpenApiYaml',
      summary: 'This OpenAPI document, as YAML',
      tag: 'Documentation',
      success: { status: 200, schema: OpenApiDocumentYaml, mediaType: 'application/yaml', description: 'The document' },
      errors: [304],
    },
  },
  {
    method: 'GET',
    path: '/api-docs/v1/swagger.json',
    handler: 'functions/api-docs.ts',
    auth: false,
    access: 'read',
    operation: {
      id: 'getOpenApiJson',
      summary: 'This OpenAPI document, as JSON',
      tag: 'Documentation',
      success: { status: 200, schema: OpenApiDocumentJson, description: 'The document' },
      errors: [304],
    },
  },

  // Accounts and tokens
  {
    method: 'GET',
    path: '/api/v1/me',
    handler: 'functions/me/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getMe',
      summary: 'The calling account and its organisation',
      tag: 'Accounts',
      success: { status: 200, schema: Me, description: 'The caller' },
      errors: [],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/me/token',
    handler: 'functions/me/regenerate-token.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'regenerateToken',
      summary: 'Regenerate the API token (the old one stops working at once)',
      tag: 'Accounts',
      success: { status: 201, schema: TokenBody, description: 'The new token, shown once' },
      errors: [],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/me/token',
    handler: 'functions/me/revoke-token.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'revokeToken',
      summary: 'Revoke the API token',
      tag: 'Accounts',
      success: { status: 204, description: 'Revoked' },
      errors: [],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/accounts',
    handler: 'functions/accounts/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listAccounts',
      summary: "List the organisation's accounts",
      tag: 'Accounts',
      success: { status: 200, schema: Account, list: true, description: 'Accounts' },
      errors: [422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/accounts',
    handler: 'functions/accounts/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createAccount',
      summary: 'Create an account (admins only); returns its first token once',
      tag: 'Accounts',
      body: AccountCreateBody,
      success: { status: 201, schema: AccountWithToken, description: 'The account and its token' },
      errors: [400, 403, 413, 415, 422],
    },
  },

  // Projects
  {
    method: 'GET',
    path: '/api/v1/projects',
    handler: 'functions/projects/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listProjects',
      summary: 'List all projects in the organisation',
      tag: 'Projects',
      success: { status: 200, schema: Project, list: true, description: 'Projects' },
      errors: [422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects',
    handler: 'functions/projects/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createProject',
      summary: 'Create a project',
      tag: 'Projects',
      body: ProjectCreateBody,
      success: { status: 201, schema: Project, description: 'The project' },
      errors: [400, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}',
    handler: 'functions/projects/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getProject',
      summary: 'Retrieve a project',
      tag: 'Projects',
      success: { status: 200, schema: Project, description: 'The project' },
      errors: [404],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/projects/{project_id}',
    handler: 'functions/projects/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'updateProject',
      summary: 'Update a project',
      tag: 'Projects',
      body: ProjectUpdateBody,
      success: { status: 200, schema: Project, description: 'The project' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/projects/{project_id}',
    handler: 'functions/projects/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'replaceProject',
      summary: 'Update a project (PUT spelling; same partial-update meaning)',
      tag: 'Projects',
      body: ProjectUpdateBody,
      success: { status: 200, schema: Project, description: 'The project' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project_id}',
    handler: 'functions/projects/delete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'deleteProject',
      summary: 'Delete a project with its sprints, issues and comments (admins only)',
      tag: 'Projects',
      success: { status: 204, description: 'Deleted' },
      errors: [403, 404],
    },
  },

  // Comments
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}/comments',
    handler: 'functions/comments/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listComments',
      summary: "List an issue's comments in creation order",
      tag: 'Comments',
      success: { status: 200, schema: Comment, list: true, description: 'Comments, oldest first' },
      errors: [404, 422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}/comments',
    handler: 'functions/comments/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createComment',
      summary: 'Comment on an issue; the author is the owner of the token',
      tag: 'Comments',
      body: CommentCreateBody,
      success: { status: 201, schema: Comment, description: 'The comment' },
      errors: [400, 404, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}/comments',
    handler: 'functions/comments/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listBacklogIssueComments',
      summary: 'List the comments of a backlog issue in creation order',
      tag: 'Comments',
      success: { status: 200, schema: Comment, list: true, description: 'Comments, oldest first' },
      errors: [404, 422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}/comments',
    handler: 'functions/comments/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createBacklogIssueComment',
      summary: 'Comment on a backlog issue; the author is the owner of the token',
      tag: 'Comments',
      body: CommentCreateBody,
      success: { status: 201, schema: Comment, description: 'The comment' },
      errors: [400, 404, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: `/api/v1/comments/${idParam}`,
    handler: 'functions/comments/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getComment',
      summary: 'Retrieve a comment',
      tag: 'Comments',
      success: { status: 200, schema: Comment, description: 'The comment' },
      errors: [404],
    },
  },
  {
    method: 'PATCH',
    path: `/api/v1/comments/${idParam}`,
    handler: 'functions/comments/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'updateComment',
      summary: 'Update a comment (its author only)',
      tag: 'Comments',
      body: CommentUpdateBody,
      success: { status: 200, schema: Comment, description: 'The comment' },
      errors: [400, 403, 404, 413, 415, 422],
    },
  },
  {
    method: 'PUT',
    path: `/api/v1/comments/${idParam}`,
    handler: 'functions/comments/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'replaceComment',
      summary: 'Update a comment (its author only; PUT spelling, same partial-update meaning)',
      tag: 'Comments',
      body: CommentUpdateBody,
      success: { status: 200, schema: Comment, description: 'The comment' },
      errors: [400, 403, 404, 413, 415, 422],
    },
  },
  {
    method: 'DELETE',
    path: `/api/v1/comments/${idParam}`,
    handler: 'functions/comments/delete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'deleteComment',
      summary: 'Delete a comment (its author only)',
      tag: 'Comments',
      success: { status: 204, description: 'Deleted' },
      errors: [403, 404],
    },
  },

  // Sprints and their lifecycle
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/sprints',
    handler: 'functions/sprints/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listSprints',
      summary: "List a project's sprints",
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, list: true, description: 'Sprints, in creation order' },
      errors: [404, 422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints',
    handler: 'functions/sprints/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createSprint',
      summary: 'Create a sprint (status planning)',
      tag: 'Sprints',
      body: SprintCreateBody,
      success: { status: 201, schema: Sprint, description: 'The sprint' },
      errors: [400, 404, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}',
    handler: 'functions/sprints/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getSprint',
      summary: 'Retrieve a sprint with its story point statistics',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The sprint' },
      errors: [404],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}',
    handler: 'functions/sprints/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'updateSprint',
      summary: 'Update a sprint',
      tag: 'Sprints',
      body: SprintUpdateBody,
      success: { status: 200, schema: Sprint, description: 'The sprint' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}',
    handler: 'functions/sprints/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'replaceSprint',
      summary: 'Update a sprint (PUT spelling; same partial-update meaning)',
      tag: 'Sprints',
      body: SprintUpdateBody,
      success: { status: 200, schema: Sprint, description: 'The sprint' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}',
    handler: 'functions/sprints/delete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'deleteSprint',
      summary: 'Delete a sprint with its issues and their comments (admins only)',
      tag: 'Sprints',
      success: { status: 204, description: 'Deleted' },
      errors: [403, 404],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/activate',
    handler: 'functions/sprints/activate.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'activateSprint',
      summary: 'Activate a sprint: planning to active (start_date defaults to today)',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The active sprint' },
      errors: [400, 404, 409, 422],
      idempotent: true,
      unprocessable: 'error',
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/activation',
    handler: 'functions/sprints/activate.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createSprintActivation',
      summary: 'Activate a sprint (the /activation spelling of /activate)',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The active sprint' },
      errors: [400, 404, 409, 422],
      idempotent: true,
      unprocessable: 'error',
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/complete',
    handler: 'functions/sprints/complete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'completeSprint',
      summary: 'Complete a sprint: active to completed; its open issues return to the backlog',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The completed sprint' },
      errors: [400, 404, 409, 422],
      idempotent: true,
      unprocessable: 'error',
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/completion',
    handler: 'functions/sprints/complete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createSprintCompletion',
      summary: 'Complete a sprint (the /completion spelling of /complete)',
      tag: 'Sprints',
      success: { status: 200, schema: Sprint, description: 'The completed sprint' },
      errors: [400, 404, 409, 422],
      idempotent: true,
      unprocessable: 'error',
    },
  },

  // An issue by its key, wherever it lives
  {
    method: 'GET',
    path: '/api/v1/issues/{issue_key}',
    handler: 'functions/issue-keys/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getIssueByKey',
      summary: 'Retrieve an issue by its key (`APL-42`, any case), in a sprint or in the backlog',
      tag: 'Issues',
      success: { status: 200, schema: Issue, description: 'The issue, with its project_id and sprint_id' },
      errors: [404],
    },
  },

  // Issues in a sprint
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues',
    handler: 'functions/issues/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listSprintIssues',
      summary: "List a sprint's issues in order (`position` 1..n), optionally filtered",
      description: filteredListDescription,
      tag: 'Issues',
      query: IssueListQuery,
      success: { status: 200, schema: Issue, list: true, description: 'Issues, in list order' },
      errors: [404, 422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues',
    handler: 'functions/issues/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createSprintIssue',
      summary: 'Create an issue at the end of a sprint (status todo unless given)',
      tag: 'Issues',
      body: IssueCreateBody,
      success: { status: 201, schema: Issue, description: 'The issue' },
      errors: [400, 404, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}',
    handler: 'functions/issues/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getSprintIssue',
      summary: 'Retrieve an issue of a sprint',
      tag: 'Issues',
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [404],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}',
    handler: 'functions/issues/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'updateSprintIssue',
      summary: 'Update an issue of a sprint; `position` reorders it, `sprint_id` moves it (null: to the backlog)',
      tag: 'Issues',
      body: IssueUpdateBody,
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}',
    handler: 'functions/issues/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'replaceSprintIssue',
      summary: 'Update an issue of a sprint (PUT spelling; same partial-update meaning)',
      tag: 'Issues',
      body: IssueUpdateBody,
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}',
    handler: 'functions/issues/delete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'deleteSprintIssue',
      summary: 'Delete an issue of a sprint with its comments',
      tag: 'Issues',
      success: { status: 204, description: 'Deleted' },
      errors: [404],
    },
  },

  // The project backlog (issues in no sprint)
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/issues',
    handler: 'functions/backlog/list.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'listBacklogIssues',
      summary: "List the project backlog's issues (in no sprint) in order (`position` 1..n), optionally filtered",
      description: filteredListDescription,
      tag: 'Backlog',
      query: IssueListQuery,
      success: { status: 200, schema: Issue, list: true, description: 'Issues, in list order' },
      errors: [404, 422],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project_id}/issues',
    handler: 'functions/backlog/create.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'createBacklogIssue',
      summary: 'Create an issue at the end of the project backlog (status backlog unless given)',
      tag: 'Backlog',
      body: IssueCreateBody,
      success: { status: 201, schema: Issue, description: 'The issue (sprint_id null)' },
      errors: [400, 404, 409, 413, 415, 422],
      idempotent: true,
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}',
    handler: 'functions/backlog/get.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'getBacklogIssue',
      summary: 'Retrieve an issue of the project backlog',
      tag: 'Backlog',
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [404],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}',
    handler: 'functions/backlog/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'updateBacklogIssue',
      summary: 'Update an issue of the backlog; `sprint_id` pulls it into a sprint, `position` reorders it',
      tag: 'Backlog',
      body: IssueUpdateBody,
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}',
    handler: 'functions/backlog/update.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'replaceBacklogIssue',
      summary: 'Update an issue of the backlog (PUT spelling; same partial-update meaning)',
      tag: 'Backlog',
      body: IssueUpdateBody,
      success: { status: 200, schema: Issue, description: 'The issue' },
      errors: [400, 404, 413, 415, 422],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project_id}/issues/{issue_id}',
    handler: 'functions/backlog/delete.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'deleteBacklogIssue',
      summary: 'Delete an issue of the backlog with its comments',
      tag: 'Backlog',
      success: { status: 204, description: 'Deleted' },
      errors: [404],
    },
  },

  // MCP server (Streamable HTTP, stateless, JSON responses; the same bearer token and rate limit)
  {
    method: 'POST',
    path: '/mcp',
    handler: 'functions/mcp.ts',
    auth: true,
    access: 'write',
    operation: {
      id: 'mcp',
      summary: 'Model Context Protocol: one JSON-RPC message per request (202, no body, for a notification)',
      tag: 'MCP',
      body: McpMessage,
      success: { status: 200, schema: McpMessage, description: 'The JSON-RPC response' },
      errors: [400, 406, 413, 415],
    },
  },
  {
    method: 'GET',
    path: '/mcp',
    handler: 'functions/mcp.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'mcpStream',
      summary: 'Not offered: the MCP server is stateless and opens no server-initiated stream (405)',
      tag: 'MCP',
      success: { status: 204, description: 'Never answered; always 405' },
      errors: [405],
    },
  },
  {
    method: 'DELETE',
    path: '/mcp',
    handler: 'functions/mcp.ts',
    auth: true,
    access: 'read',
    operation: {
      id: 'mcpEndSession',
      summary: 'Not offered: the MCP server is stateless and has no session to end (405)',
      tag: 'MCP',
      success: { status: 204, description: 'Never answered; always 405' },
      errors: [405],
    },
  },
];

/** Status codes every authenticated route may answer. */
export const commonErrors = [401, 429, 500, 503];

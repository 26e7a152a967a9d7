import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ListToolsRequestSchema, type ListToolsResult, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Principal } from '../model/principal.ts';
import { MAX_BODY_BYTES } from '../http/stack.ts';
import { accountTools } from './tools/accounts.ts';
import { commentTools } from './tools/comments.ts';
import { relationTools } from './tools/relations.ts';
import { issueTools } from './tools/issues.ts';
import { batchTools } from './tools/batch.ts';
import { searchTools } from './tools/search.ts';
import { subIssueTools } from './tools/sub-issues.ts';
import { labelTools } from './tools/labels.ts';
import { projectTools } from './tools/projects.ts';
import { sprintTools } from './tools/sprints.ts';
import { workspaceTools } from './tools/workspace.ts';
import { renderToolList } from './listing.ts';
import { type Tool } from './tool.ts';
import { registerPrompts } from './prompts.ts';
import { nameResolver } from './resolve.ts';
import { registerResources } from './resources.ts';
import { connectionOf, type Connection } from './connection.ts';

const INSTRUCTIONS = `Sprint Ticketing Service: projects hold sprints, sprints hold issues, issues hold comments.
Start with get_workspace: you, the projects with their prefixes, active sprints and labels, the accounts, and the issue statuses, priorities and types.
Issues that belong to no sprint are the project's backlog. Every issue has a number PREFIX-n (the project's prefix).
Sprints go planning -> active -> completed; completing a sprint returns its open issues to the backlog.
Ids and positions are positive integers; a position counts from 1 (the top), past the end means last. Everything you see belongs to your organisation.
Names work where ids do: project_id takes a prefix ("APL") or a project name; assignee_id takes "me", an account name or e-mail; sprint_id, to_sprint_id and carry_over_sprint_id take "active" (the project's active sprint) or a sprint name. An ambiguous name fails with the candidates: pass an id then.
Name an issue by issue_number ("APL-12"); issue tools also take project_id and issue_id instead, and its sprint_id (null: the backlog) beside them saves a lookup.
update_* tools change only the fields given; null clears an optional one. Tools that change or delete one resource take expected_version (its \`version\`): then they apply only if it is still at that version.
delete_* tools cannot be undone: confirm with the person first.
List tools take limit (1-100, default 50) and cursor, and return next_cursor: pass it as cursor for more (null at the end). Fewer come back when they would pass the 5 MiB response budget.`;

/** Every tool, in the order `tools/list` shows them. */
export const tools: Tool[] = [
  ...workspaceTools,
  ...projectTools,
  ...sprintTools,
  ...issueTools,
  ...batchTools,
  ...subIssueTools,
  ...searchTools,
  ...labelTools,
  ...commentTools,
  ...relationTools,
  ...accountTools,
];

/**
 * The `tools/list` answers, one per set of scopes shown and role, each rendered on the first
 * request that asks for it and kept for the container.
 */
const toolLists = new Map<string, ListToolsResult>();

/** The tools a connection is shown: those of its scopes (lib/mcp/connection.ts) that the role may ever use. */
export function toolsShown(caller: Principal, connection: Connection): Tool[] {
  return tools.filter((t) => connection.shown.includes(t.scope) && (caller.role === 'admin' || !t.adminOnly));
}

/**
 * What `tools/list` shows the caller. The tools left out stay callable, so that a call to one gets
 * the connection's or the role's own message rather than "not found" (lib/mcp/tool.ts).
 */
function toolListFor(caller: Principal, connection: Connection): ListToolsResult {
  const key = `${connection.shown.join(' ')}|${caller.role}`;
  let list = toolLists.get(key);
  if (!list) {
    list = { tools: renderToolList(toolsShown(caller, connection).map((t) => t.listing)) };
    toolLists.set(key, list);
  }
  return list;
}

/**
 * The server validates JSON Schemas only for elicitation answers, and this server never elicits.
 * Supplying this validator keeps the SDK from building its default (Ajv) one on every request, and
 * lets the `/mcp` bundle leave Ajv out (infra/shims/unused-sdk-dependencies.ts).
 */
const noElicitation: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('This server does not elicit input');
  },
};

/**
 * The MCP server of one request: every tool closes over the caller, so each domain call is scoped
 * to the caller's organisation by construction (as the REST handlers are).
 */
export function createMcpServer(caller: Principal, connection: Connection = connectionOf(caller)): McpServer {
  const server = new McpServer(
    { name: 'sprint-ticketing', title: 'Sprint Ticketing Service', version: '1.0.0' },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: noElicitation },
  );
  for (const tool of tools) tool.register(server, caller, connection);
  const resolve = nameResolver(caller);
  registerResources(server, caller, connection, resolve);
  registerPrompts(server, caller, connection, resolve);
  // The SDK's own answer carries its full JSON Schema conversion, rebuilt per request; this one is
  // compact (lib/mcp/listing.ts) and built once. Calls are still validated against the zod schemas.
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolListFor(caller, connection));
  // The SDK marks each list it serves as one whose changes it will announce (`listChanged`): a
  // stateless server answers one request and keeps no stream to announce anything on.
  server.server.registerCapabilities(STATELESS_LISTS);
  return server;
}

/** What `initialize` says of the lists: none of them announces its changes. */
export const STATELESS_LISTS = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
} as const satisfies ServerCapabilities;

/**
 * Answers one Streamable HTTP request. Stateless (no session id) with plain JSON responses, so a
 * Lambda behind API Gateway can serve it: no stream outlives the request. The SDK requires a
 * fresh server and transport per request in this mode.
 */
export async function handleMcpRequest(
  caller: Principal,
  request: Request,
  query: Record<string, string | undefined> = {},
): Promise<Response> {
  const server = createMcpServer(caller, connectionOf(caller, query));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ListToolsRequestSchema, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Principal } from '../domain/principal.ts';
import { MAX_BODY_BYTES } from '../http/stack.ts';
import { accountTools } from './tools/accounts.ts';
import { commentTools } from './tools/comments.ts';
import { relationTools } from './tools/relations.ts';
import { issueTools } from './tools/issues.ts';
import { searchTools } from './tools/search.ts';
import { subIssueTools } from './tools/sub-issues.ts';
import { labelTools } from './tools/labels.ts';
import { projectTools } from './tools/projects.ts';
import { sprintTools } from './tools/sprints.ts';
import { renderToolList } from './listing.ts';
import { scopeNeeded, type Tool } from './tool.ts';

const INSTRUCTIONS = `Sprint Ticketing Service: projects hold sprints, sprints hold issues, issues hold comments.
Issues that belong to no sprint are the project's backlog. Every issue has a number PREFIX-n (the project's prefix).
Sprints go planning -> active -> completed; completing a sprint returns its open issues to the backlog.
Ids and positions are positive integers; find ids with the list_* tools. Everything you see belongs to the token's organisation.
Name an issue by issue_number ("APL-12"), or by project_id and issue_id; adding its sprint_id (null: the backlog) saves a lookup.
update_* tools change only the fields given; null clears an optional one.
List tools return up to \`limit\` items and next_cursor: pass it as cursor for more (null at the end). Fewer come back when they would pass the 5 MiB response budget.`;

/** Every tool, in the order `tools/list` shows them. */
export const tools: Tool[] = [
  ...projectTools,
  ...sprintTools,
  ...issueTools,
  ...subIssueTools,
  ...searchTools,
  ...labelTools,
  ...commentTools,
  ...relationTools,
  ...accountTools,
];

/**
 * The `tools/list` answers, one per set of OAuth scopes (`*`: an API token, every tool), each
 * rendered on the first request that asks for it and kept for the container.
 */
const toolLists = new Map<string, ListToolsResult>();

/**
 * What `tools/list` shows the caller: an OAuth connection sees only the tools its scopes allow (a
 * read-only one, only read tools; delete tools only with `delete`). The others stay callable, so
 * that a call to one gets the scope's own message rather than "not found" (lib/mcp/tool.ts).
 */
function toolListFor(caller: Principal): ListToolsResult {
  const key = caller.scopes?.join(' ') ?? '*';
  let list = toolLists.get(key);
  if (!list) {
    const scopes = caller.scopes;
    const shown = scopes === undefined ? tools : tools.filter((t) => scopes.includes(scopeNeeded(t.listing.annotations)));
    list = { tools: renderToolList(shown.map((t) => t.listing)) };
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
export function createMcpServer(caller: Principal): McpServer {
  const server = new McpServer(
    { name: 'sprint-ticketing', title: 'Sprint Ticketing Service', version: '1.0.0' },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: noElicitation },
  );
  for (const tool of tools) tool.register(server, caller);
  // The SDK's own answer carries its full JSON Schema conversion, rebuilt per request; this one is
  // compact (lib/mcp/listing.ts) and built once. Calls are still validated against the zod schemas.
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolListFor(caller));
  return server;
}

/**
 * Answers one Streamable HTTP request. Stateless (no session id) with plain JSON responses, so a
 * Lambda behind API Gateway can serve it: no stream outlives the request. The SDK requires a
 * fresh server and transport per request in this mode.
 */
export async function handleMcpRequest(caller: Principal, request: Request): Promise<Response> {
  const server = createMcpServer(caller);
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

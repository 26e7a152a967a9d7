import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { getParseErrorMessage } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Principal } from '../model/principal.ts';
import { MAX_BODY_BYTES } from '../http/stack.ts';
import type { ToolListEntry } from './listing.ts';
import shippedTools from './tool-list.json' with { type: 'json' };
import { safeParseAsync } from 'zod';
import { registerPrompts } from './prompts.ts';
import type { NameResolver } from './resolve.ts';
import { registerResources } from './resources.ts';
import { connectionOf, type Connection } from './connection.ts';

/**
 * What a call runs (every tool's code, the services and the data layer, lib/mcp/domain.ts), loaded
 * by the first request that calls a tool, reads a resource or gets a prompt, then kept for the
 * container. `initialize` and `tools/list` need none of it: the tool list is data rendered at build
 * time (lib/mcp/tool-list.json, `npm run mcp:tools`).
 */
const domain = () => import('./domain.ts');

const INSTRUCTIONS = `Sprint Ticketing Service: projects hold sprints, sprints hold issues, issues hold comments.
Start with get_workspace: you, the projects with their prefixes, active sprints, labels and custom fields, the accounts, and the issue statuses, priorities and types.
Issues that belong to no sprint are the project's backlog. Every issue has a number PREFIX-n (the project's prefix).
Sprints go planning -> active -> completed; completing a sprint returns its open issues to the backlog.
Ids and positions are positive integers; a position counts from 1 (the top), past the end means last. Everything you see belongs to your organisation.
Names work where ids do: project_id takes a prefix ("APL") or a project name; assignee_id takes "me", an account name or e-mail; sprint_id, to_sprint_id and carry_over_sprint_id take "active" (the project's active sprint) or a sprint name. An ambiguous name fails with the candidates: pass an id then.
Name an issue by issue_number ("APL-12"); issue tools also take project_id and issue_id instead, and its sprint_id (null: the backlog) beside them saves a lookup.
Dates are YYYY-MM-DD. Issue fields: description is Markdown; status takes a state's name or a category's; labels takes names or ids and replaces the issue's (as a filter: issues carrying all of them); custom_fields takes values by field key or name (get_workspace lists each project's fields), null clearing one; q looks in titles. The items of create_issues and update_issues are create_issue's and update_issue's arguments.
update_* tools change only the fields given; null clears an optional one. Tools that change or delete one resource take expected_version (its \`version\`): then they apply only if it is still at that version.
delete_* tools move what they delete to the trash for a while: confirm with the person first. restore brings an item back whole (a sprint's or project's issues follow, as list_trash shows); revert_change undoes one get_issue_activity entry.
List tools take limit (1-100, default 50) and cursor, and return next_cursor: pass it as cursor for more (null at the end). Fewer come back when they would pass the 5 MiB response budget.`;

/**
 * The `tools/list` answers, one per set of scopes shown and role, each picked on the first
 * request that asks for it and kept for the container.
 */
const toolLists = new Map<string, ListToolsResult>();

/** The tool list rendered at build time (`npm run mcp:tools`): no schema is converted at run time. */
const toolList = shippedTools as ToolListEntry[];

/** The tools a connection is shown: those of its scopes (lib/mcp/connection.ts) that the role may ever use. */
export function toolsShown(caller: Principal, connection: Connection, list: ToolListEntry[] = toolList): ToolListEntry[] {
  return list.filter((t) => connection.shown.includes(t.scope) && (caller.role === 'admin' || !t.adminOnly));
}

/**
 * What `tools/list` shows the caller. The tools left out stay callable, so that a call to one gets
 * the connection's or the role's own message rather than "not found" (lib/mcp/tool.ts).
 */
function toolListFor(caller: Principal, connection: Connection): ListToolsResult {
  const key = `${connection.shown.join(' ')}|${caller.role}`;
  let list = toolLists.get(key);
  if (!list) {
    list = { tools: toolsShown(caller, connection).map((t) => t.tool) };
    toolLists.set(key, list);
  }
  return list;
}

/**
 * `tools/call`, as the SDK's `McpServer` answers it for a registered tool: an unknown tool or
 * arguments its schema refuses are a tool error with the SDK's own message; the tool's code is
 * loaded with the call (`domain`).
 */
export async function callTool(
  caller: Principal,
  connection: Connection,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  try {
    const tool = (await domain()).tools.find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    const parsed = await safeParseAsync(tool.takes, args ?? {});
    if (!parsed.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Input validation error: Invalid arguments for tool ${name}: ${getParseErrorMessage(parsed.error)}`,
      );
    }
    return await tool.call(caller, connection, parsed.data as Record<string, unknown>);
  } catch (error) {
    return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
  }
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
  const resolve: NameResolver = async (args) => (await domain()).nameResolver(caller)(args);
  registerResources(server, caller, connection, resolve);
  registerPrompts(server, caller, connection, resolve);
  // The SDK marks each list it serves as one whose changes it will announce (`listChanged`): a
  // stateless server answers one request and keeps no stream to announce anything on.
  server.server.registerCapabilities(STATELESS_LISTS);
  // The SDK's own tool handlers would convert every schema per request and need every tool's code
  // at hand; the list is compact data rendered at build time (lib/mcp/listing.ts), and a call loads
  // the tools then. Calls are still validated against the zod schemas.
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolListFor(caller, connection));
  server.server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(caller, connection, request.params.name, request.params.arguments),
  );
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

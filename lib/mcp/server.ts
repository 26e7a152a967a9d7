import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Principal } from '../domain/principal.ts';
import { MAX_BODY_BYTES } from '../http/handler.ts';
import { registerAccountTools } from './tools/accounts.ts';
import { registerCommentTools } from './tools/comments.ts';
import { registerIssueTools } from './tools/issues.ts';
import { registerProjectTools } from './tools/projects.ts';
import { registerSprintTools } from './tools/sprints.ts';

const INSTRUCTIONS = `Sprint Ticketing Service: projects hold sprints, sprints hold issues, issues hold comments.
Issues that belong to no sprint are the project's backlog. Every issue has a number PREFIX-n (the project's prefix).
Sprints go planning -> active -> completed; completing a sprint returns its open issues to the backlog.
Ids are integers; find them with the list_* tools. Everything you see belongs to the token's organisation.`;

/**
 * The MCP server of one request: every tool closes over the caller, so each domain call is scoped
 * to the caller's organisation by construction (as the REST handlers are).
 */
export function createMcpServer(caller: Principal): McpServer {
  const server = new McpServer(
    { name: 'sprint-ticketing', title: 'Sprint Ticketing Service', version: '1.0.0' },
    { instructions: INSTRUCTIONS },
  );
  registerProjectTools(server, caller);
  registerSprintTools(server, caller);
  registerIssueTools(server, caller);
  registerCommentTools(server, caller);
  registerAccountTools(server, caller);
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

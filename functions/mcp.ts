import { routeHandler } from '../lib/http/stack.ts';
import { answerMcp } from '../lib/mcp/http.ts';

/**
 * `/mcp`: the MCP server (Streamable HTTP, stateless, JSON responses). The authorizer has already
 * resolved the bearer token; the shared stack answers 401/429 before any MCP processing.
 * JSON-RPC carries its own request ids: `Idempotency-Key` is a REST convention, not offered here,
 * so this function takes the stack without it (and its bundle, the idempotency code). The MCP
 * server itself loads on the first request (lib/mcp/http.ts says why).
 */
export const handler = routeHandler(async (req) => answerMcp(req.event, req.principal));

import { apiHandler } from '../lib/http/handler.ts';
import { answerMcp } from '../lib/mcp/http.ts';

/**
 * `/mcp`: the MCP server (Streamable HTTP, stateless, JSON responses). The authorizer has already
 * resolved the bearer token; the shared stack answers 401/429 before any MCP processing.
 * JSON-RPC carries its own request ids: `Idempotency-Key` is a REST convention, not offered here.
 */
export const handler = apiHandler(async (req) => answerMcp(req.event, req.principal), { idempotent: false });

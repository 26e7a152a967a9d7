import * as z from 'zod';

/**
 * A JSON-RPC 2.0 message as `/mcp` exchanges it, for the OpenAPI document only: the MCP SDK
 * validates the messages themselves.
 */
export const McpMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int()]).nullable().optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' });

const flag = (description: string) => z.enum(['true', 'false']).optional().describe(description);

/** What a connection asks to be offered (lib/mcp/connection.ts, docs/mcp.md). */
export const McpQuery = z.object({
  read_only: flag('`true`: only the read tools, listed and callable (any token).'),
  delete: flag('`true`: list the delete tools to an API token too (an OAuth connection needs the `delete` scope).'),
});

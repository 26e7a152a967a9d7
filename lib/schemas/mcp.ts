import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
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

/**
 * The request headers of `POST /mcp` (MCP Streamable HTTP): the SDK's transport answers 406 to an
 * `Accept` that does not take both JSON and an event stream, though this server answers JSON only.
 */
export const McpRequestHeaders = z.object({
  Accept: z
    .string()
    .regex(/^(?=.*application\/json)(?=.*text\/event-stream)/)
    .meta({
      param: {
        description:
          'Must list both `application/json` and `text/event-stream` (`Accept: application/json, text/event-stream`), else 406. Answers are JSON.',
      },
      example: 'application/json, text/event-stream',
    }),
  'MCP-Protocol-Version': z
    .enum(SUPPORTED_PROTOCOL_VERSIONS as [string, ...string[]])
    .optional()
    .meta({ param: { description: 'The protocol revision agreed at `initialize`; optional (any other is 400).' } }),
});

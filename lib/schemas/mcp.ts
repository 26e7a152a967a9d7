import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { meta, describe } from './zod.ts';

/**
 * A JSON-RPC 2.0 message as `/mcp` exchanges it, for the OpenAPI document only: the MCP SDK
 * validates the messages themselves.
 */
export const McpMessage = meta(
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.optional(z.nullable(z.union([z.string(), z.number().check(z.int())]))),
    method: z.optional(z.string()),
    params: z.optional(z.record(z.string(), z.unknown())),
    result: z.optional(z.record(z.string(), z.unknown())),
    error: z.optional(z.object({ code: z.number().check(z.int()), message: z.string(), data: z.optional(z.unknown()) })),
  }),
  { id: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' },
);

const flag = (description: string) => describe(z.optional(z.enum(['true', 'false'])), description);

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
  Accept: meta(z.string().check(z.regex(/^(?=.*application\/json)(?=.*text\/event-stream)/)), {
    param: {
      description:
        'Must list both `application/json` and `text/event-stream` (`Accept: application/json, text/event-stream`), else 406. Answers are JSON.',
    },
    example: 'application/json, text/event-stream',
  }),
  'MCP-Protocol-Version': meta(z.optional(z.enum(SUPPORTED_PROTOCOL_VERSIONS as [string, ...string[]])), {
    param: { description: 'The protocol revision agreed at `initialize`; optional (any other is 400).' },
  }),
});

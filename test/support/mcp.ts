import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fetchOnce } from './api.ts';

/** What a tool call came back with, plus what its HTTP request cost. */
export interface ToolOutcome {
  result: CallToolResult;
  /** DynamoDB calls of the HTTP request that carried the call (authorizer included). */
  dbCalls: number;
  /** The text content (the JSON of the result, or the error message). */
  text: string;
}

/**
 * The official MCP client (Streamable HTTP) connected to the local gateway's `/mcp` with a bearer
 * token, as an agent would connect (`query`: the connection's flags, e.g. `?read_only=true`). `statuses` and `bodyBytes` record every HTTP response it saw.
 */
export async function mcpClient(baseUrl: string, token: string, query = '') {
  let lastDbCalls = -1;
  const statuses: number[] = [];
  /** Body size in bytes of each HTTP response, as it came over the wire. */
  const bodyBytes: number[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const res = await fetchOnce(input, init);
      statuses.push(res.status);
      bodyBytes.push((await res.clone().arrayBuffer()).byteLength);
      lastDbCalls = Number(res.headers.get('x-db-calls') ?? -1);
      return res;
    },
  });
  const client = new Client({ name: 'sprint-ticketing-e2e', version: '1.0.0' });
  await client.connect(transport);

  async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const first = result.content[0];
    return { result, dbCalls: lastDbCalls, text: first?.type === 'text' ? first.text : '' };
  }

  /** Calls a tool that must succeed and returns its structured result. */
  async function ok<T = any>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const outcome = await call(name, args);
    if (outcome.result.isError) throw new Error(`${name} failed: ${outcome.text}`);
    return outcome.result.structuredContent as T;
  }

  /** Calls a tool that must fail and returns its error message. */
  async function error(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const outcome = await call(name, args);
    if (!outcome.result.isError) throw new Error(`${name} unexpectedly succeeded: ${outcome.text}`);
    return outcome.text;
  }

  return { client, call, ok, error, statuses, bodyBytes, close: () => client.close() };
}
export type McpTestClient = Awaited<ReturnType<typeof mcpClient>>;

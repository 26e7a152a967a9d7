import type { APIGatewayProxyEvent } from 'aws-lambda';
import { config, publicUrl } from '../config.ts';
import type { Principal } from '../model/principal.ts';
import type { ApiResult } from '../http/stack.ts';
import { charsetRefusal } from '../http/json-content-type.ts';
import { jsonText } from '../http/middleware/body-guard.ts';

/**
 * The MCP server (the SDK, the tool list and the prompts and resources), loaded by the first request
 * that carries an MCP message, then kept for the container's life; the tools' code (the services
 * and the data layer) loads on the first call (lib/mcp/server.ts). The function's bundle is split
 * at these imports (`splitEntries`, infra/bundling.ts), so its init loads the shared HTTP stack only
 * and stays within the bundles' init budget (tools/bench/README.md); the answers that need no server
 * (429 from the shared stack, the 405 and 400 below) never load it.
 */
const mcpServer = () => import('./server.ts');

/**
 * `/mcp` behind API Gateway: the proxy event becomes a web-standard Request for the SDK's
 * transport, and its Response becomes the handler's result. Only POST carries MCP messages: a
 * stateless server offers no server-initiated stream (GET) and no session to end (DELETE), which
 * the MCP specification answers with 405.
 */
export async function answerMcp(event: APIGatewayProxyEvent, caller: Principal): Promise<ApiResult> {
  const { corsOrigins, mcp } = config();
  const refused = originRefusal(event.headers ?? {}, { publicUrl: publicUrl(), corsOrigins, ...mcp });
  if (refused) return { status: 403, body: { error: refused } };
  if (event.httpMethod !== 'POST') {
    return {
      status: 405,
      body: { error: 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST' },
      headers: { Allow: 'POST' },
    };
  }
  // The transport refuses a media type that is not JSON (415); a JSON body in another charset than UTF-8 too.
  const charset = charsetRefusal(event.headers?.['content-type'] ?? '');
  if (charset !== undefined) return { status: 415, body: { error: charset } };
  const body = jsonText(typeof event.body === 'string' ? event.body : '', event.isBase64Encoded);
  // One message per request, so each tool call is one request against the caller's rate limit
  // (the 2025-06-18 revision of MCP dropped JSON-RPC batching anyway).
  if (/^\s*\[/.test(body)) {
    return { status: 400, body: { error: 'Batches are not supported: send one JSON-RPC message per request' } };
  }
  const { handleMcpRequest } = await mcpServer();
  const response = await handleMcpRequest(caller, toWebRequest(event, body), event.queryStringParameters ?? {});
  return toApiResult(response);
}

export interface OriginSettings {
  /** The service's base URL (`PUBLIC_URL`): its origin is the service's own. */
  publicUrl: string;
  /** Browser origins allowed to call the API (`CORS_ORIGINS`). */
  corsOrigins: readonly string[];
  /** Browser-based MCP clients' origins (`MCP_ALLOWED_ORIGINS`). */
  allowedOrigins: readonly string[];
  /** `Host` values the deployment names (`MCP_ALLOWED_HOSTS`); none: no Host check. */
  allowedHosts: readonly string[];
}

/**
 * Why a request to `/mcp` is refused for where it comes from, or undefined (MCP Streamable HTTP,
 * security: servers must validate `Origin`, and answer one that is present and invalid with 403,
 * against DNS rebinding). An `Origin` is allowed when it is the service's own (`PUBLIC_URL`'s, or
 * one of an allowed host) or configured (`CORS_ORIGINS`, `MCP_ALLOWED_ORIGINS`); none at all, as
 * non-browser clients send, passes. Where the deployment names its hosts (`MCP_ALLOWED_HOSTS`,
 * which `npm start` sets to its loopback names), `Host` must be one of them or `PUBLIC_URL`'s: a
 * rebound name (`evil.example.com` resolving to 127.0.0.1) is not. Pure.
 */
export function originRefusal(headers: Record<string, string | undefined>, settings: OriginSettings): string | undefined {
  const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const own = new URL(settings.publicUrl);
  const hosts = settings.allowedHosts.length > 0 ? [own.host.toLowerCase(), ...settings.allowedHosts] : [];
  const host = header('host')?.trim().toLowerCase();
  if (hosts.length > 0 && (host === undefined || !hosts.includes(host))) {
    return `Host ${host ?? '(none)'} is not one this MCP server answers to (${hosts.join(', ')})`;
  }
  const origin = header('origin')?.trim();
  if (origin === undefined) return undefined;
  const origins = [
    own.origin,
    ...settings.allowedHosts.map((h) => `${own.protocol}//${h}`),
    ...settings.corsOrigins,
    ...settings.allowedOrigins,
  ];
  if (origins.some((allowed) => allowed.toLowerCase() === origin.toLowerCase())) return undefined;
  return `Origin ${origin} may not call this MCP server: allowed are its own origin and those configured (MCP_ALLOWED_ORIGINS, CORS_ORIGINS)`;
}

/** The SDK's Request: its URL the configured address's (`PUBLIC_URL`), never one a forged `Host` makes (or breaks). */
function toWebRequest(event: APIGatewayProxyEvent, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const url = `${publicUrl()}${event.path}`;
  return new Request(url, { method: event.httpMethod, headers, body });
}

/**
 * In JSON-response mode every answer is JSON or empty (202 for notifications). The transport's
 * own refusals (400 unparsable, 406 Accept, 413, 415) carry a JSON-RPC error without an id, which
 * MCP allows but does not require: they become the service's `{error}` body like every other 4xx.
 */
async function toApiResult(response: Response): Promise<ApiResult> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
  });
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (response.status >= 400) {
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    return { status: response.status, body: { error: typeof message === 'string' ? message : 'Invalid MCP request' }, headers };
  }
  return { status: response.status, body, headers };
}

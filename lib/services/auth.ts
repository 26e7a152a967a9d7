import { authenticateAndConsume, type Authentication } from '../jobs/token-buckets.ts';
import { UnauthorizedError } from '../vocabulary/errors.ts';
import { hasExpired, looksLikeAccessToken, MCP_RESOURCE_PATH } from '../model/oauth.ts';
import { hashToken, looksLikeToken, sameToken } from '../model/tokens.ts';

type Headers = Record<string, string | undefined> | null | undefined;
type MultiValueHeaders = Record<string, string[] | undefined> | null | undefined;

const tokenHeaders = ['authorization', 'x-api-token'] as const;

/**
 * 401 when a token header comes more than once (API Gateway's `multiValueHeaders` holds every
 * copy, `headers` only the last; names in any case count as one): otherwise the last copy would
 * win and the rule that both headers carry the same token could be sidestepped.
 */
export function refuseRepeatedTokenHeaders(headers: Headers, multi: MultiValueHeaders): void {
  for (const wanted of tokenHeaders) {
    const copies = (entries: [string, unknown][], count: (v: unknown) => number) =>
      entries.filter(([name]) => name.toLowerCase() === wanted).reduce((n, [, v]) => n + count(v), 0);
    const sent = Math.max(
      copies(Object.entries(multi ?? {}), (v) => (Array.isArray(v) ? v.length : 0)),
      copies(Object.entries(headers ?? {}), (v) => (v === undefined ? 0 : 1)),
    );
    if (sent > 1)
      throw new UnauthorizedError(
        `The ${wanted === 'authorization' ? 'Authorization' : 'X-API-Token'} header is sent more than once`,
      );
  }
}

/**
 * The token a request carries: `Authorization: Bearer <t>` or `X-API-Token: <t>`. When both are
 * sent they must carry the same token.
 */
export function tokenFromHeaders(headers: Headers): string {
  let bearer: string | undefined;
  let apiKey: string | undefined;
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' && value !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(value);
      if (!m) throw new UnauthorizedError('Authorization header must be "Bearer <API_TOKEN>"');
      bearer = m[1];
    } else if (lower === 'x-api-token' && value !== undefined) {
      apiKey = value.trim();
    }
  }
  if (bearer !== undefined && apiKey !== undefined && !sameToken(bearer, apiKey)) {
    throw new UnauthorizedError('Authorization and X-API-Token carry different tokens');
  }
  const token = bearer ?? apiKey;
  if (!token) throw new UnauthorizedError('Missing API token');
  return token;
}

/**
 * Authenticates a request to `resource` (the route's path template, API Gateway's `resource`) and takes one request from the
 * token's rate-limit bucket (usually one DynamoDB call). Throws UnauthorizedError for a missing,
 * malformed, unknown or revoked token, and for an OAuth access token that has expired or is
 * presented anywhere but `/mcp` (its only resource: docs/mcp.md); such a token is refused before
 * any call when its path is not `/mcp`, and a token header sent more than once.
 */
export async function authenticate(
  headers: Headers,
  now = Date.now(),
  resource?: string,
  multiValueHeaders?: MultiValueHeaders,
): Promise<NonNullable<Authentication>> {
  refuseRepeatedTokenHeaders(headers, multiValueHeaders);
  const token = tokenFromHeaders(headers);
  const oauth = looksLikeAccessToken(token);
  if (!oauth && !looksLikeToken(token)) throw new UnauthorizedError('Invalid API token');
  if (oauth && resource !== MCP_RESOURCE_PATH) throw new UnauthorizedError('OAuth access tokens open /mcp only');
  const auth = await authenticateAndConsume(hashToken(token), now);
  if (!auth) throw new UnauthorizedError('Invalid API token');
  // A stored scope marks an OAuth token whatever it looks like: it never opens another route.
  if (auth.principal.scopes !== undefined && resource !== MCP_RESOURCE_PATH) {
    throw new UnauthorizedError('OAuth access tokens open /mcp only');
  }
  if (hasExpired(auth.principal.expiresAt, now)) throw new UnauthorizedError('The access token has expired');
  return auth;
}

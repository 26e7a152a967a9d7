import { authenticateAndConsume, type Authentication } from '../db/tokens.ts';
import { UnauthorizedError } from '../vocabulary/errors.ts';
import { hasExpired, looksLikeAccessToken, MCP_RESOURCE_PATH } from '../model/oauth.ts';
import { hashToken, looksLikeToken, sameToken } from '../model/tokens.ts';

type Headers = Record<string, string | undefined> | null | undefined;

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
 * any call when its path is not `/mcp`.
 */
export async function authenticate(headers: Headers, now = Date.now(), resource?: string): Promise<NonNullable<Authentication>> {
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

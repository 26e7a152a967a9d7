import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TOKEN_PREFIX } from './tokens.ts';

/**
 * The rules of the OAuth 2.1 authorization server in front of `/mcp` (docs/mcp.md: Connecting an
 * assistant): scopes, redirect URIs, PKCE, what tokens look like and how long they live. Pure;
 * the data layer is lib/db/organisation/oauth.ts, the HTTP side lib/oauth/.
 */

/** What a connection may do: each MCP tool needs exactly one of these (lib/mcp/tool.ts). */
export const SCOPES = ['read', 'write', 'delete'] as const;
export type Scope = (typeof SCOPES)[number];

/** What the authorization page says each scope allows. */
export const scopeDescriptions: Record<Scope, string> = {
  read: 'See projects, sprints, issues, comments and accounts of your organisation',
  write: 'Create and change projects, sprints, issues and comments (as you)',
  delete: 'Delete projects, sprints, issues and comments (as far as your role allows)',
};

/** What a client gets when it asks for no scope: reading and writing, never deleting. */
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write'];

/**
 * A registered client that never gets a token is gone after a day: registration is open to
 * anyone, and a client nobody authorized is only clutter (or a flood's residue).
 */
export const UNUSED_CLIENT_SECONDS = 86_400;

/**
 * Registrations one source address may make per hour (lib/config.ts: OAUTH_REGISTRATIONS_PER_ADDRESS;
 * the WAF of a deployment holds them to a rate of its own, infra/constructs/web-acl.ts). A person
 * connects an assistant or two; an office behind one address, a handful more.
 */
export const REGISTRATION_HOUR_SECONDS = 3600;

/** The hour (Unix hours) a registration at `nowMs` counts in, and the seconds until the next one. */
export function registrationHour(nowMs: number): { hour: number; secondsLeft: number } {
  const seconds = Math.floor(nowMs / 1000);
  const hour = Math.floor(seconds / REGISTRATION_HOUR_SECONDS);
  return { hour, secondsLeft: Math.max(1, (hour + 1) * REGISTRATION_HOUR_SECONDS - seconds) };
}

/** Access tokens live an hour; refresh tokens 30 days (each use rotates it); codes 5 minutes. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;
export const CODE_SECONDS = 300;

/** Prefixes, so that a leaked one is recognisable (as API tokens are) and the kinds never mix. */
export const ACCESS_PREFIX = `${TOKEN_PREFIX}oat_`;
export const REFRESH_PREFIX = `${TOKEN_PREFIX}ort_`;
const CODE_PREFIX = `${TOKEN_PREFIX}oac_`;
const CLIENT_PREFIX = 'stc_';

const random = () => randomBytes(32).toString('base64url');
export const newAccessToken = () => ACCESS_PREFIX + random();
export const newRefreshToken = () => REFRESH_PREFIX + random();
export const newCode = () => CODE_PREFIX + random();
export const newClientId = () => CLIENT_PREFIX + randomBytes(16).toString('base64url');
/** A grant: one approval, with its chain of rotated refresh tokens (revoked together). */
export const newGrantId = () => randomBytes(16).toString('base64url');

export const looksLikeAccessToken = (t: string) => /^stk_oat_[A-Za-z0-9_-]{43}$/.test(t);
export const looksLikeRefreshToken = (t: string) => /^stk_ort_[A-Za-z0-9_-]{43}$/.test(t);
export const looksLikeCode = (t: string) => /^stk_oac_[A-Za-z0-9_-]{43}$/.test(t);
export const looksLikeClientId = (t: string) => /^stc_[A-Za-z0-9_-]{22}$/.test(t);

/**
 * The scopes a request asks for (space-separated, RFC 6749 §3.3), or the reason it is refused:
 * an unknown scope is refused, not silently dropped, so that a client never believes it holds
 * more than it does. None asked: `DEFAULT_SCOPES`.
 */
export function parseScopes(raw: string | undefined): Scope[] | { error: string } {
  const asked = (raw ?? '').split(' ').filter(Boolean);
  if (asked.length === 0) return [...DEFAULT_SCOPES];
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) return { error: `Unknown scope: ${unknown.join(' ')} (known: ${SCOPES.join(' ')})` };
  return SCOPES.filter((s) => asked.includes(s));
}

/** Scopes as a space-separated string, in their canonical order. */
export const scopeString = (scopes: readonly Scope[]) => SCOPES.filter((s) => scopes.includes(s)).join(' ');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * Which redirect URIs a client may register: `https` anywhere, or `http` on a loopback address
 * (127.0.0.1 or [::1], any port: RFC 8252 §7.3, for clients on the person's own machine). No
 * fragment, no user info; `localhost` is refused (RFC 8252 §8.3: it may resolve elsewhere), and
 * so are custom schemes, whose owner no one can vouch for.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} has a fragment`;
  if (url.username || url.password) return `${uri} carries user information`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${uri} must be https, or http on a loopback address (127.0.0.1 or [::1])`;
}

/**
 * Whether a redirect URI of a request is one the client registered: the same string, except that
 * a loopback URI may name any port (RFC 8252 §7.3: the client listens on a port it gets then).
 */
export function redirectUriRegistered(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  const portless = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    try {
      return portless(new URL(r)) === portless(url);
    } catch {
      return false;
    }
  });
}

/** A code challenge as S256 makes it: base64url(SHA-256(verifier)), 43 characters. */
export const isCodeChallenge = (c: string) => /^[A-Za-z0-9_-]{43}$/.test(c);

/**
 * PKCE (RFC 7636), S256 only: the verifier (43 to 128 unreserved characters) hashes to the
 * challenge the authorization request carried. Compared in constant time.
 */
export function pkceVerifies(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !isCodeChallenge(challenge)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** Whether something that expires at `expiresAt` (Unix seconds) has expired at `nowMs`. */
export const hasExpired = (expiresAt: number | undefined, nowMs = Date.now()) =>
  expiresAt !== undefined && Number(expiresAt) * 1000 <= nowMs;

/** Unix seconds `seconds` from `nowMs`. */
export const expiresIn = (seconds: number, nowMs = Date.now()) => Math.floor(nowMs / 1000) + seconds;

/** The path of the one protected resource: OAuth access tokens open `/mcp` and nothing else. */
export const MCP_RESOURCE_PATH = '/mcp';

/** RFC 9728: what `/mcp` is and who issues its tokens. */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: `${issuer}${MCP_RESOURCE_PATH}`,
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Sprint Ticketing Service (MCP)',
    resource_documentation: `${issuer}/api-docs`,
  };
}

/** RFC 8414: the authorization server's endpoints and what it supports. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/api-docs`,
  };
}

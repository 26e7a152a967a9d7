import { bucketStateOf } from '../db/organisation/tokens.ts';
import { authenticateAndConsume } from '../jobs/token-buckets.ts';
import { revokeGrant } from '../jobs/token-grants.ts';
import { isRefused } from '../db/core/transactions.ts';
import {
  countRegistration,
  findClient,
  findRefresh,
  grantOfAccessToken,
  rotateRefresh,
  saveClient,
  saveCode,
  saveGrant,
  takeCode,
  type Approval,
  type OAuthClient,
  type Pair,
} from '../db/organisation/oauth.ts';
import type { OAuthClientRegistrationBody } from '../schemas/oauth.ts';
import {
  ACCESS_TOKEN_SECONDS,
  CODE_SECONDS,
  expiresIn,
  hasExpired,
  isCodeChallenge,
  looksLikeAccessToken,
  looksLikeClientId,
  looksLikeCode,
  looksLikeRefreshToken,
  MCP_RESOURCE_PATH,
  newAccessToken,
  newClientId,
  newCode,
  newGrantId,
  newRefreshToken,
  parseScopes,
  pkceVerifies,
  redirectUriProblem,
  redirectUriRegistered,
  REFRESH_TOKEN_SECONDS,
  scopeString,
  registrationHour,
  type Scope,
  UNUSED_CLIENT_SECONDS,
} from '../model/oauth.ts';
import { hashToken, looksLikeToken } from '../model/tokens.ts';

/**
 * The flows of the authorization server (RFC 6749 as OAuth 2.1 keeps it): registration, approval,
 * the code and refresh exchanges, revocation. Refusals are `OAuthFailure`s, which the handlers
 * answer in OAuth's own shape (lib/oauth/http.ts).
 */
export class OAuthFailure extends Error {
  override readonly name = 'OAuthFailure';
  readonly status: 400 | 401 | 429;
  readonly error: string;
  readonly description: string;
  /** A 429's `Retry-After` (whole seconds). */
  readonly retryAfterSeconds: number;
  constructor(status: 400 | 401 | 429, error: string, description: string, retryAfterSeconds = 1) {
    super(description);
    this.status = status;
    this.error = error;
    this.description = description;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const invalid = (description: string) => new OAuthFailure(400, 'invalid_request', description);
const invalidGrant = (description: string) => new OAuthFailure(400, 'invalid_grant', description);

/**
 * RFC 7591: registers a public client (PKCE, no secret), after checking its redirect URIs. Counted
 * against its source address (`registrationsPerAddress` an hour), since anyone may register; the
 * client goes after a day unless it is used to get a token.
 */
export async function registerClient(
  body: OAuthClientRegistrationBody,
  sourceAddress: string,
  registrationsPerAddress: number,
  now = Date.now(),
) {
  const problems = body.redirect_uris.map(redirectUriProblem).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new OAuthFailure(400, 'invalid_redirect_uri', problems.join('; '));
  const grantTypes = body.grant_types ?? ['authorization_code', 'refresh_token'];
  const unsupported = grantTypes.filter((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupported.length > 0)
    throw new OAuthFailure(400, 'invalid_client_metadata', `Unsupported grant type: ${unsupported.join(', ')}`);
  if ((body.response_types ?? ['code']).some((r) => r !== 'code')) {
    throw new OAuthFailure(400, 'invalid_client_metadata', 'Only the response type "code" is supported');
  }
  if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== 'none') {
    throw new OAuthFailure(
      400,
      'invalid_client_metadata',
      'Clients are public: token_endpoint_auth_method must be "none" (PKCE)',
    );
  }
  const { hour, secondsLeft } = registrationHour(now);
  if (!(await countRegistration(sourceAddress, hour, registrationsPerAddress))) {
    throw new OAuthFailure(
      429,
      'slow_down',
      `Too many client registrations from this address (${registrationsPerAddress} an hour); try again in ${Math.ceil(secondsLeft / 60)} minutes`,
      secondsLeft,
    );
  }
  const client: OAuthClient = {
    clientId: newClientId(),
    clientName: (body.client_name ?? '').trim() || 'Unnamed client',
    redirectUris: body.redirect_uris,
    createdAt: new Date(now).toISOString(),
    expiresAt: expiresIn(UNUSED_CLIENT_SECONDS, now),
  };
  await saveClient(client);
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
  };
}

/** The parameters of an authorization request (the page's query, then its form). */
export interface AuthorizationRequest {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  resource?: string | undefined;
}

/**
 * What an authorization request resolves to. `unsafe`: the client or its redirect URI cannot be
 * trusted, so the page shows the error itself and never redirects (RFC 6749 §4.1.2.1). `redirect`:
 * the error goes back to the client. `ok`: the page may ask for approval.
 */
export type Checked =
  | { kind: 'unsafe'; message: string }
  | { kind: 'redirect'; redirectUri: string; error: string; description: string }
  | { kind: 'ok'; client: OAuthClient; redirectUri: string; scopes: Scope[]; challenge: string };

export async function checkAuthorizationRequest(req: AuthorizationRequest, issuer: string): Promise<Checked> {
  const found = req.client_id && looksLikeClientId(req.client_id) ? await findClient(req.client_id) : undefined;
  // One never used expires a day after its registration (TTL deletes it some time later).
  const client = found && !hasExpired(found.expiresAt) ? found : undefined;
  if (!client) return { kind: 'unsafe', message: 'Unknown client: register it first (client_id).' };
  const redirectUri = req.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !redirectUriRegistered(client.redirectUris, redirectUri)) {
    return { kind: 'unsafe', message: 'The redirect_uri is not one this client registered.' };
  }
  const refuse = (error: string, description: string): Checked => ({ kind: 'redirect', redirectUri, error, description });
  if (req.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be "code"');
  if (req.code_challenge_method !== 'S256' || !req.code_challenge || !isCodeChallenge(req.code_challenge)) {
    return refuse('invalid_request', 'PKCE is required: code_challenge with code_challenge_method S256');
  }
  if (req.resource !== undefined && req.resource !== `${issuer}${MCP_RESOURCE_PATH}`) {
    return refuse('invalid_target', `The only resource is ${issuer}${MCP_RESOURCE_PATH}`);
  }
  const scopes = parseScopes(req.scope);
  if ('error' in scopes) return refuse('invalid_scope', scopes.error);
  return { kind: 'ok', client, redirectUri, scopes, challenge: req.code_challenge };
}

/**
 * The person approved, with their API token: the token is checked (and charged to its rate
 * bucket, as any request with it), and a code is issued for the scopes they kept (a subset of
 * those asked). Returns the code, or why the token was refused.
 */
export async function approve(
  checked: Extract<Checked, { kind: 'ok' }>,
  apiToken: string,
  granted: Scope[],
  now = Date.now(),
): Promise<{ code: string } | { refused: string } | { invalidScope: string }> {
  // RFC 6749 §4.1.2.1: the scope granted must hold one of those asked; none kept is `invalid_scope`.
  const scopes = checked.scopes.filter((s) => granted.includes(s));
  if (scopes.length === 0) return { invalidScope: 'None of the scopes asked for was kept on the approval page' };
  if (!looksLikeToken(apiToken)) return { refused: 'That is not an API token (they start with stk_).' };
  const auth = await authenticateAndConsume(hashToken(apiToken), now);
  if (!auth) return { refused: 'That API token is unknown or revoked.' };
  if (!auth.rate.allowed) throw new OAuthFailure(429, 'slow_down', 'Too many requests with this API token; try again shortly');
  const code = newCode();
  const { principal } = auth;
  await saveCode(hashToken(code), {
    orgId: principal.orgId,
    accountId: principal.accountId,
    role: principal.role,
    name: principal.name,
    clientId: checked.client.clientId,
    scope: scopeString(scopes),
    redirectUri: checked.redirectUri,
    codeChallenge: checked.challenge,
    expiresAt: expiresIn(CODE_SECONDS, now),
  });
  return { code };
}

type Form = Record<string, string | undefined>;

function newPair(now: number): { access: string; refresh: string; pair: Pair } {
  const access = newAccessToken();
  const refresh = newRefreshToken();
  return {
    access,
    refresh,
    pair: {
      accessHash: hashToken(access),
      accessExpiresAt: expiresIn(ACCESS_TOKEN_SECONDS, now),
      refreshHash: hashToken(refresh),
      refreshExpiresAt: expiresIn(REFRESH_TOKEN_SECONDS, now),
    },
  };
}

const tokens = (access: string, refresh: string, scope: string) => ({
  access_token: access,
  token_type: 'Bearer' as const,
  expires_in: ACCESS_TOKEN_SECONDS,
  refresh_token: refresh,
  scope,
});

function checkResource(form: Form, issuer: string) {
  if (form.resource !== undefined && form.resource !== `${issuer}${MCP_RESOURCE_PATH}`) {
    throw new OAuthFailure(400, 'invalid_target', `The only resource is ${issuer}${MCP_RESOURCE_PATH}`);
  }
}

/** `grant_type=authorization_code`: the code (used once), its client, redirect URI and PKCE verifier. */
export async function exchangeCode(form: Form, issuer: string, now = Date.now()) {
  if (!form.client_id || !form.code || !form.code_verifier) throw invalid('client_id, code and code_verifier are required');
  checkResource(form, issuer);
  if (!looksLikeCode(form.code)) throw invalidGrant('Unknown, used or expired code');
  // Taken before it is checked: a code is spent by any attempt, so a guessed verifier gets one try.
  const code = await takeCode(hashToken(form.code));
  if (!code || hasExpired(code.expiresAt, now)) throw invalidGrant('Unknown, used or expired code');
  if (code.clientId !== form.client_id) throw invalidGrant('The code was issued to another client');
  if (form.redirect_uri !== undefined && form.redirect_uri !== code.redirectUri) {
    throw invalidGrant('redirect_uri differs from the authorization request');
  }
  if (!pkceVerifies(form.code_verifier, code.codeChallenge))
    throw invalidGrant('The code_verifier does not match the code_challenge');
  const { access, refresh, pair } = newPair(now);
  const approval: Approval = {
    orgId: code.orgId,
    accountId: code.accountId,
    role: code.role,
    name: code.name,
    clientId: code.clientId,
    scope: code.scope,
  };
  try {
    await saveGrant(newGrantId(), approval, pair);
  } catch (err) {
    if (isRefused(err, 'client')) throw invalidGrant('The client is no longer registered');
    throw err;
  }
  return tokens(access, refresh, code.scope);
}

/**
 * `grant_type=refresh_token`: a new pair for the old refresh token, which is spent. A spent one
 * presented again means it leaked (OAuth 2.1 §4.3.1): the whole grant is revoked.
 */
export async function refreshTokens(form: Form, issuer: string, now = Date.now()) {
  if (!form.client_id || !form.refresh_token) throw invalid('client_id and refresh_token are required');
  checkResource(form, issuer);
  if (!looksLikeRefreshToken(form.refresh_token)) throw invalidGrant('Unknown, revoked or expired refresh token');
  const oldHash = hashToken(form.refresh_token);
  const old = await findRefresh(oldHash);
  if (!old || hasExpired(old.expiresAt, now)) throw invalidGrant('Unknown, revoked or expired refresh token');
  if (old.clientId !== form.client_id) throw invalidGrant('The refresh token was issued to another client');
  if (old.used) {
    await revokeGrant(old.grant);
    throw invalidGrant('The refresh token was already used: the grant is revoked, authorize again');
  }
  if (form.scope !== undefined) {
    const asked = parseScopes(form.scope);
    const held = old.scope.split(' ');
    if ('error' in asked || asked.some((s) => !held.includes(s))) {
      throw new OAuthFailure(400, 'invalid_scope', 'A refresh may keep or narrow the granted scope, never widen it');
    }
  }
  const { access, refresh, pair } = newPair(now);
  const refused = await rotateRefresh(oldHash, old, pair, await bucketStateOf(old.accessHash));
  if (refused === 'reused') {
    await revokeGrant(old.grant);
    throw invalidGrant('The refresh token was already used: the grant is revoked, authorize again');
  }
  if (refused === 'revoked') throw invalidGrant('Unknown, revoked or expired refresh token');
  return tokens(access, refresh, old.scope);
}

/**
 * RFC 7009: revokes the grant of an access or refresh token, both tokens of it at once. An
 * unknown token, or one of another client, is answered the same (200) and nothing happens.
 */
export async function revokeToken(form: Form): Promise<void> {
  const token = form.token;
  if (!token) throw invalid('token is required');
  let owner: { grant: string; clientId: string } | undefined;
  if (looksLikeRefreshToken(token)) owner = await findRefresh(hashToken(token));
  else if (looksLikeAccessToken(token)) owner = await grantOfAccessToken(hashToken(token));
  if (!owner) return;
  if (form.client_id !== undefined && form.client_id !== owner.clientId) return;
  await revokeGrant(owner.grant);
}

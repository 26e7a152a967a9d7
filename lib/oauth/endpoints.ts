import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  approve,
  checkAuthorizationRequest,
  exchangeCode,
  OAuthFailure,
  refreshTokens,
  registerClient,
  revokeToken,
  type AuthorizationRequest,
} from '../services/oauth-grants.ts';
import { config, publicUrl } from '../config.ts';
import { authorizationServerMetadata, protectedResourceMetadata, SCOPES, type Scope } from '../model/oauth.ts';
import { formBody, oauthJson, rawBody } from './http.ts';
import { approvalPage, csrfCookie, csrfMatches, errorPage, newCsrfValue, pageHeaders } from './page.ts';

/**
 * The routes of the authorization server of `/mcp` (docs/mcp.md), one function each, served by one
 * Lambda function (functions/oauth.ts): seven functions of their own would take the stack past
 * CloudFormation's 500 resources.
 */
type Endpoint = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/**
 * `GET /.well-known/oauth-protected-resource` (RFC 9728) and `.../oauth-authorization-server`
 * (RFC 8414): how an MCP client finds where to get a token for `/mcp`. Built from the service's
 * configured address (`PUBLIC_URL`: the custom domain, or API Gateway's host and stage), never
 * from the request's `Host`: the answer is the same for every request, so caches may share it.
 * Any web page may read them.
 */
const metadata: Endpoint = async (event) => {
  const issuer = publicUrl();
  const body = event.resource.includes('oauth-protected-resource')
    ? protectedResourceMetadata(issuer)
    : authorizationServerMetadata(issuer);
  return oauthJson(200, body, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
};

/** `POST /oauth/register` (RFC 7591): a public client (PKCE, no secret) with its redirect URIs. */
const register: Endpoint = async (event) => {
  let json: unknown;
  try {
    json = JSON.parse(rawBody(event) || 'null');
  } catch {
    throw new OAuthFailure(400, 'invalid_client_metadata', 'The body is not JSON');
  }
  // zod loads with the first registration, not with the function (the cold start of the others).
  const { OAuthClientRegistrationBody } = await import('../schemas/oauth.ts');
  const parsed = OAuthClientRegistrationBody.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw new OAuthFailure(400, 'invalid_client_metadata', problems);
  }
  const address = event.requestContext?.identity?.sourceIp || 'unknown';
  return oauthJson(201, await registerClient(parsed.data, address, config().oauth.registrationsPerAddress));
};

/** `POST /oauth/token`: a code and its PKCE verifier, or a refresh token, for a new token pair. */
const token: Endpoint = async (event) => {
  const form = formBody(event);
  const issuer = publicUrl();
  if (form.grant_type === 'authorization_code') return oauthJson(200, await exchangeCode(form, issuer));
  if (form.grant_type === 'refresh_token') return oauthJson(200, await refreshTokens(form, issuer));
  throw new OAuthFailure(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
};

/** `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known. */
const revoke: Endpoint = async (event) => {
  await revokeToken(formBody(event));
  return { statusCode: 200, headers: { 'Cache-Control': 'no-store' }, body: '' };
};

const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
  'resource',
];

const html = (status: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { ...pageHeaders, ...headers },
  body,
});

/** Back to the client with `params` (`state`, and `iss` as RFC 9207 asks) on its redirect URI. */
function redirect(uri: string, params: Record<string, string | undefined>): APIGatewayProxyResult {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { statusCode: 302, headers: { Location: url.href, 'Cache-Control': 'no-store' }, body: '' };
}

/**
 * `GET /oauth/authorize`: the approval page of an authorization request; `POST`: its answer. A
 * request whose client or redirect URI is unknown gets an error page and never a redirect. Unknown
 * query parameters are ignored, as OAuth requires (RFC 6749 §3.1).
 */
const authorize: Endpoint = async (event) => {
  const issuer = publicUrl();
  const post = event.httpMethod === 'POST';
  const form = new URLSearchParams(post ? rawBody(event) : '');
  const source: Record<string, string | undefined> = Object.fromEntries(
    PARAMS.map((p) => [p, (post ? form.get(p) : event.queryStringParameters?.[p]) ?? undefined]),
  );
  const request = source as AuthorizationRequest;
  const checked = await checkAuthorizationRequest(request, issuer);
  if (checked.kind === 'unsafe') return html(400, errorPage(checked.message));
  if (checked.kind === 'redirect') {
    const { error, description } = checked;
    return redirect(checked.redirectUri, { error, error_description: description, state: request.state, iss: issuer });
  }
  const page = (status: number, error?: string) => {
    const csrf = newCsrfValue();
    const body = approvalPage({
      clientName: checked.client.clientName,
      redirectUri: checked.redirectUri,
      scopes: checked.scopes,
      params: { ...source, redirect_uri: checked.redirectUri },
      csrf,
      ...(error ? { error } : {}),
    });
    return html(status, body, { 'Set-Cookie': csrfCookie(csrf, issuer.startsWith('https:')) });
  };
  if (!post) return page(200);
  const cookie = Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'cookie')?.[1];
  if (!csrfMatches(cookie, form.get('csrf') ?? undefined)) {
    return page(403, 'This form expired or did not come from this page: try again.');
  }
  if (form.get('decision') !== 'approve') {
    const denied = { error: 'access_denied', error_description: 'The person denied access' };
    return redirect(checked.redirectUri, { ...denied, state: request.state, iss: issuer });
  }
  const granted = form.getAll('granted').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  const outcome = await approve(checked, (form.get('api_token') ?? '').trim(), granted);
  if ('invalidScope' in outcome) {
    const invalidScope = { error: 'invalid_scope', error_description: outcome.invalidScope };
    return redirect(checked.redirectUri, { ...invalidScope, state: request.state, iss: issuer });
  }
  if ('refused' in outcome) return page(401, outcome.refused);
  return redirect(checked.redirectUri, { code: outcome.code, state: request.state, iss: issuer });
};

/** Each route's endpoint, by `METHOD resource` as in the route table. */
export const endpoints: Record<string, Endpoint> = {
  'GET /.well-known/oauth-protected-resource': metadata,
  'GET /.well-known/oauth-protected-resource/mcp': metadata,
  'GET /.well-known/oauth-authorization-server': metadata,
  'POST /oauth/register': register,
  'GET /oauth/authorize': authorize,
  'POST /oauth/authorize': authorize,
  'POST /oauth/token': token,
  'POST /oauth/revoke': revoke,
};

/** Routes that take any query parameter (OAuth's authorization endpoint must ignore unknown ones). */
export const lenientQuery = new Set(['GET /oauth/authorize', 'POST /oauth/authorize']);

import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { approve, checkAuthorizationRequest, type AuthorizationRequest } from '../../lib/domain/oauth-grants.ts';
import { issuerOf, SCOPES, type Scope } from '../../lib/domain/oauth.ts';
import { oauthHandler, rawBody } from '../../lib/oauth/http.ts';
import { approvalPage, csrfCookie, csrfMatches, errorPage, newCsrfValue, pageHeaders } from '../../lib/oauth/page.ts';

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

/** Back to the client with `params` (and `state`, `iss`: RFC 9207) on its redirect URI. */
function redirect(uri: string, params: Record<string, string | undefined>): APIGatewayProxyResult {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { statusCode: 302, headers: { Location: url.href, 'Cache-Control': 'no-store' }, body: '' };
}

/**
 * `GET /oauth/authorize`: the approval page for an authorization request; `POST`: its answer.
 * A request whose client or redirect URI is unknown gets an error page and never a redirect.
 * Unknown query parameters are ignored, as OAuth requires (RFC 6749 §3.1).
 */
export const handler = oauthHandler(
  async (event: APIGatewayProxyEvent) => {
    const issuer = issuerOf(event);
    const secure = issuer.startsWith('https:');
    const post = event.httpMethod === 'POST';
    const form = new URLSearchParams(post ? rawBody(event) : '');
    const source: Record<string, string | undefined> = post
      ? Object.fromEntries(PARAMS.map((p) => [p, form.get(p) ?? undefined]))
      : Object.fromEntries(PARAMS.map((p) => [p, event.queryStringParameters?.[p] ?? undefined]));
    const request = source as AuthorizationRequest;
    const checked = await checkAuthorizationRequest(request, issuer);
    if (checked.kind === 'unsafe') return html(400, errorPage(checked.message));
    if (checked.kind === 'redirect') {
      return redirect(checked.redirectUri, {
        error: checked.error,
        error_description: checked.description,
        state: request.state,
        iss: issuer,
      });
    }
    const page = (status: number, error?: string) => {
      const csrf = newCsrfValue();
      const params = { ...source, redirect_uri: checked.redirectUri };
      return html(
        status,
        approvalPage({
          clientName: checked.client.client_name,
          redirectUri: checked.redirectUri,
          scopes: checked.scopes,
          params,
          csrf,
          ...(error ? { error } : {}),
        }),
        {
          'Set-Cookie': csrfCookie(csrf, secure),
        },
      );
    };
    if (!post) return page(200);
    const cookie = Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'cookie')?.[1];
    if (!csrfMatches(cookie, form.get('csrf') ?? undefined))
      return page(403, 'This form expired or did not come from this page: try again.');
    if (form.get('decision') !== 'approve') {
      return redirect(checked.redirectUri, {
        error: 'access_denied',
        error_description: 'The person denied access',
        state: request.state,
        iss: issuer,
      });
    }
    const granted = form.getAll('granted').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    const outcome = await approve(checked, (form.get('api_token') ?? '').trim(), granted);
    if ('refused' in outcome) return page(401, outcome.refused);
    return redirect(checked.redirectUri, { code: outcome.code, state: request.state, iss: issuer });
  },
  { anyQuery: true },
);

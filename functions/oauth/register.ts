import { OAuthFailure, registerClient } from '../../lib/domain/oauth-grants.ts';
import { oauthHandler, oauthJson, rawBody } from '../../lib/oauth/http.ts';
import { OAuthClientRegistrationBody } from '../../lib/schemas/oauth.ts';

/**
 * `POST /oauth/register` (RFC 7591 dynamic client registration), without authentication: a public
 * client (PKCE, no secret) with its redirect URIs (https, or http on a loopback address).
 */
export const handler = oauthHandler(async (event) => {
  let json: unknown;
  try {
    json = JSON.parse(rawBody(event) || 'null');
  } catch {
    throw new OAuthFailure(400, 'invalid_client_metadata', 'The body is not JSON');
  }
  const parsed = OAuthClientRegistrationBody.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw new OAuthFailure(400, 'invalid_client_metadata', problems);
  }
  return oauthJson(201, await registerClient(parsed.data));
});

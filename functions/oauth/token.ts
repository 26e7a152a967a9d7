import { exchangeCode, OAuthFailure, refreshTokens } from '../../lib/domain/oauth-grants.ts';
import { issuerOf } from '../../lib/domain/oauth.ts';
import { formBody, oauthHandler, oauthJson } from '../../lib/oauth/http.ts';

/**
 * `POST /oauth/token`: an authorization code and its PKCE verifier, or a refresh token, for a new
 * access token (an hour, `/mcp` only) and refresh token (rotated on every use).
 */
export const handler = oauthHandler(async (event) => {
  const form = formBody(event);
  const issuer = issuerOf(event);
  if (form.grant_type === 'authorization_code') return oauthJson(200, await exchangeCode(form, issuer));
  if (form.grant_type === 'refresh_token') return oauthJson(200, await refreshTokens(form, issuer));
  throw new OAuthFailure(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
});

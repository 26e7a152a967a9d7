import * as z from 'zod';
import { redirectUriPattern } from './common.ts';

/**
 * The OAuth 2.1 authorization server of `/mcp` (docs/mcp.md). Its bodies and errors are OAuth's
 * own (RFC 6749, 7591, 7009, 8414, 9728), not the `{error}` of the REST API: the clients that
 * call it are generic OAuth clients. Registration is JSON; the token and revocation endpoints take
 * form bodies, as OAuth says.
 */

/** A redirect URI as the server takes it (lib/model/oauth.ts `redirectUriProblem`), stated strictly. */
const url = z.string().max(2000).meta({ format: 'uri', pattern: redirectUriPattern });

/** A form field: an empty one reads as absent (lib/oauth/http.ts), so a given one is never empty. */
const field = () => z.string().min(1);

/** RFC 7591 registration request: what this server reads of it; other metadata is ignored. */
export const OAuthClientRegistrationBody = z
  .looseObject({
    redirect_uris: z.array(url).min(1).max(10),
    client_name: z.string().max(200).optional(),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    token_endpoint_auth_method: z.literal('none').optional(),
    scope: z.string().max(200).optional(),
  })
  .meta({ id: 'OAuthClientRegistration', description: 'RFC 7591 client metadata; unknown fields are ignored.' });
export type OAuthClientRegistrationBody = z.infer<typeof OAuthClientRegistrationBody>;

/** RFC 7591 registration answer: a public client (PKCE, no secret). */
export const OAuthClientInformation = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
  })
  .meta({ id: 'OAuthClientInformation', description: 'The registered client.' });

/** `/oauth/token`, form-encoded: an authorization code with its PKCE verifier, or a refresh token. */
export const OAuthTokenForm = z
  .object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    client_id: field(),
    code: field().optional(),
    code_verifier: field().optional(),
    redirect_uri: field().optional(),
    refresh_token: field().optional(),
    resource: field().optional(),
    scope: field().optional(),
  })
  .meta({ id: 'OAuthTokenRequest' });

export const OAuthTokens = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope: z.string(),
  })
  .meta({ id: 'OAuthTokens', description: 'An access token (for /mcp only) and the refresh token that replaces it.' });

/** `/oauth/revoke`, form-encoded (RFC 7009). */
export const OAuthRevokeForm = z
  .object({ token: field(), token_type_hint: field().optional(), client_id: field().optional() })
  .meta({ id: 'OAuthRevokeRequest' });

/** `/oauth/authorize`, the page's form (POST). */
export const OAuthApprovalForm = z
  .object({
    decision: z.enum(['approve', 'deny']),
    api_token: field().optional(),
    csrf: field(),
    client_id: field(),
    redirect_uri: field(),
    code_challenge: field(),
    code_challenge_method: z.literal('S256'),
    response_type: z.literal('code'),
    scope: field().optional(),
    granted: field().optional(),
    state: field().optional(),
    resource: field().optional(),
  })
  .meta({ id: 'OAuthApproval' });

export const OAuthError = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .meta({ id: 'OAuthError', description: 'An OAuth error (RFC 6749 §5.2).' });

export const OAuthMetadata = z
  .looseObject({})
  .meta({ id: 'OAuthMetadata', description: 'RFC 9728 protected-resource or RFC 8414 authorization-server metadata.' });

export const OAuthPage = z.string().meta({ description: 'The authorization page (HTML, no script).' });

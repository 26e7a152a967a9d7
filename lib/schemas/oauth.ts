import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { redirectUriPattern } from './common.ts';

/**
 * The OAuth 2.1 authorization server of `/mcp` (docs/mcp.md). Its bodies and errors are OAuth's
 * own (RFC 6749, 7591, 7009, 8414, 9728), not the `{error}` of the REST API: the clients that
 * call it are generic OAuth clients. Registration is JSON; the token and revocation endpoints take
 * form bodies, as OAuth says.
 */

/** A redirect URI as the server takes it (lib/model/oauth.ts `redirectUriProblem`), stated strictly. */
const url = meta(z.string().check(z.maxLength(2000)), { format: 'uri', pattern: redirectUriPattern });

/** A form field: an empty one reads as absent (lib/oauth/http.ts), so a given one is never empty. */
const field = () => z.string().check(z.minLength(1));

/** RFC 7591 registration request: what this server reads of it; other metadata is ignored. */
export const OAuthClientRegistrationBody = meta(
  z.looseObject({
    redirect_uris: z.array(url).check(z.minLength(1)).check(z.maxLength(10)),
    client_name: z.optional(z.string().check(z.maxLength(200))),
    grant_types: z.optional(z.array(z.enum(['authorization_code', 'refresh_token']))),
    response_types: z.optional(z.array(z.literal('code'))),
    token_endpoint_auth_method: z.optional(z.literal('none')),
    scope: z.optional(z.string().check(z.maxLength(200))),
  }),
  { id: 'OAuthClientRegistration', description: 'RFC 7591 client metadata; unknown fields are ignored.' },
);
export type OAuthClientRegistrationBody = z.infer<typeof OAuthClientRegistrationBody>;

/** RFC 7591 registration answer: a public client (PKCE, no secret). */
export const OAuthClientInformation = meta(
  z.object({
    client_id: z.string(),
    client_id_issued_at: z.number().check(z.int()),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
  }),
  { id: 'OAuthClientInformation', description: 'The registered client.' },
);

/** `/oauth/token`, form-encoded: an authorization code with its PKCE verifier, or a refresh token. */
export const OAuthTokenForm = meta(
  z.object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    client_id: field(),
    code: z.optional(field()),
    code_verifier: z.optional(field()),
    redirect_uri: z.optional(field()),
    refresh_token: z.optional(field()),
    resource: z.optional(field()),
    scope: z.optional(field()),
  }),
  { id: 'OAuthTokenRequest' },
);

export const OAuthTokens = meta(
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().check(z.int()),
    refresh_token: z.string(),
    scope: z.string(),
  }),
  { id: 'OAuthTokens', description: 'An access token (for /mcp only) and the refresh token that replaces it.' },
);

/** `/oauth/revoke`, form-encoded (RFC 7009). */
export const OAuthRevokeForm = meta(
  z.object({ token: field(), token_type_hint: z.optional(field()), client_id: z.optional(field()) }),
  { id: 'OAuthRevokeRequest' },
);

/** `/oauth/authorize`, the page's form (POST). */
export const OAuthApprovalForm = meta(
  z.object({
    decision: z.enum(['approve', 'deny']),
    api_token: z.optional(field()),
    csrf: field(),
    client_id: field(),
    redirect_uri: field(),
    code_challenge: field(),
    code_challenge_method: z.literal('S256'),
    response_type: z.literal('code'),
    scope: z.optional(field()),
    granted: z.optional(field()),
    state: z.optional(field()),
    resource: z.optional(field()),
  }),
  { id: 'OAuthApproval' },
);

export const OAuthError = meta(z.object({ error: z.string(), error_description: z.optional(z.string()) }), {
  id: 'OAuthError',
  description: 'An OAuth error (RFC 6749 §5.2).',
});

export const OAuthMetadata = meta(z.looseObject({}), {
  id: 'OAuthMetadata',
  description: 'RFC 9728 protected-resource or RFC 8414 authorization-server metadata.',
});

export const OAuthPage = meta(z.string(), { description: 'The authorization page (HTML, no script).' });

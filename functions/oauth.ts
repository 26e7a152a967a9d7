import { endpoints, lenientQuery } from '../lib/oauth/endpoints.ts';
import { oauthHandler } from '../lib/oauth/http.ts';

/**
 * The OAuth 2.1 authorization server of `/mcp` (docs/mcp.md): its metadata, client registration,
 * the approval page, the token and revocation endpoints. Public (no authorizer): each answers for
 * itself, in OAuth's own shapes (lib/oauth/endpoints.ts).
 */
export const handler = oauthHandler(async (event) => {
  const endpoint = endpoints[`${event.httpMethod} ${event.resource}`];
  if (!endpoint) throw new Error(`no OAuth endpoint for ${event.httpMethod} ${event.resource}`);
  return endpoint(event);
}, lenientQuery);

import { authorizationServerMetadata, issuerOf, protectedResourceMetadata } from '../../lib/domain/oauth.ts';
import { oauthHandler, oauthJson } from '../../lib/oauth/http.ts';

/**
 * `GET /.well-known/oauth-protected-resource` (RFC 9728) and `GET /.well-known/oauth-authorization-server`
 * (RFC 8414), without authentication: how an MCP client finds out where to get a token for `/mcp`.
 * Built from the request's own address, so they name the host and stage they were asked on.
 */
export const handler = oauthHandler(async (event) => {
  const issuer = issuerOf(event);
  const body = event.resource.endsWith('oauth-protected-resource')
    ? protectedResourceMetadata(issuer)
    : authorizationServerMetadata(issuer);
  // Public documents: any web page may read them (browser-based MCP clients discover from one).
  return oauthJson(200, body, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
});

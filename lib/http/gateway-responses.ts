/**
 * API Gateway's own responses, rewritten to the service's JSON `{error}` shape. The CDK stack
 * installs these as gateway responses; the local gateway answers with the same ones.
 */
export const gatewayResponses = {
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid API token' },
  ACCESS_DENIED: { status: 403, message: 'Access denied' },
  MISSING_AUTHENTICATION_TOKEN: { status: 404, message: 'No such route' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  THROTTLED: { status: 429, message: 'Too many requests' },
  QUOTA_EXCEEDED: { status: 429, message: 'Request quota exceeded' },
  // The authorizer fails (rather than refusing a token) when DynamoDB refused the token lookup
  // after the SDK's retries: nothing was applied, so this is 503 with Retry-After, not 500.
  AUTHORIZER_FAILURE: { status: 503, message: 'The service is busy, please retry' },
  DEFAULT_4XX: { status: 400, message: 'Bad request' },
  DEFAULT_5XX: { status: 500, message: 'Internal server error' },
} as const;

/** The well-known prefix of protected-resource metadata (RFC 9728 §3). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The path of the one protected resource, `/mcp`, under the API's base URL. */
const MCP_PATH = '/mcp';

/**
 * Where RFC 9728 §3.1 puts a resource's metadata: the well-known prefix inserted between the host
 * and the resource's path (`https://h/mcp` -> `https://h/.well-known/oauth-protected-resource/mcp`).
 */
export function rfc9728MetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${RESOURCE_METADATA_PATH}${path}`;
}

/**
 * Where `/mcp`'s metadata is served, for an API at `baseUrl` (scheme, host, and the stage path on
 * API Gateway's own host): the well-known prefix inserted before the resource's path within the
 * API. Behind a custom domain (or locally) that is exactly RFC 9728's location. On API Gateway's
 * own host the API lives under the stage (`https://abc.execute-api…/prod`), and RFC 9728's location,
 * `https://abc.execute-api…/.well-known/oauth-protected-resource/prod/mcp`, cannot be routed (the
 * first path segment is always a stage): the metadata is served at
 * `https://abc.execute-api…/prod/.well-known/oauth-protected-resource/mcp`, which the
 * `WWW-Authenticate` challenge points to (MCP clients follow the pointer before guessing).
 */
export const resourceMetadataUrl = (baseUrl: string) => `${baseUrl}${RESOURCE_METADATA_PATH}${MCP_PATH}`;

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750, RFC 9728 §5.1): where an MCP client finds
 * how to get a token. The stack's UNAUTHORIZED gateway response carries it, and so does the local
 * gateway's; `baseUrl` is the API's (scheme, host, stage path).
 */
export const bearerChallenge = (baseUrl: string) => `Bearer resource_metadata="${resourceMetadataUrl(baseUrl)}"`;

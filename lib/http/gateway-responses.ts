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

/** Where `/mcp`'s protected-resource metadata lives (RFC 9728), under the API's base URL. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750, RFC 9728 §5.1): where an MCP client finds
 * how to get a token. The stack's UNAUTHORIZED gateway response carries it, and so does the local
 * gateway's; `baseUrl` is the API's (scheme, host, stage path).
 */
export const bearerChallenge = (baseUrl: string) => `Bearer resource_metadata="${baseUrl}${RESOURCE_METADATA_PATH}"`;

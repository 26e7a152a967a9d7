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
  AUTHORIZER_FAILURE: { status: 500, message: 'Authorization failed, please retry' },
  DEFAULT_4XX: { status: 400, message: 'Bad request' },
  DEFAULT_5XX: { status: 500, message: 'Internal server error' },
} as const;

import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticate } from '../lib/services/auth.ts';
import { UnauthorizedError } from '../lib/vocabulary/errors.ts';
import { toAuthorizerContext } from '../lib/http/context.ts';
import { logger } from '../lib/http/logger.ts';
import { countMetric, metricNames, publishMetrics } from '../lib/http/metrics.ts';
import { usageKeyFor } from '../lib/http/usage-key.ts';

/**
 * REQUEST authorizer (no identity sources, no caching): resolves the token to its principal and
 * rate decision. Unknown tokens throw "Unauthorized", which API Gateway answers with 401; a
 * rate-limited caller is allowed through with the decision in the context, and the route's
 * handler answers 429 before any domain work. Refused tokens, rate-limited requests and failures
 * are counted (lib/http/metrics.ts).
 */
async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  // The same keys as the routes' log lines (lib/http/stack.ts), so one request reads as one story.
  logger.appendKeys({ route: `${event.httpMethod} ${event.resource}`, apiRequestId: event.requestContext?.requestId });
  try {
    const auth = await authenticate(event.headers, Date.now(), event.resource, event.multiValueHeaders);
    if (!auth.rate.allowed) countMetric(metricNames.rateLimited);
    return {
      principalId: `org/${auth.principal.orgId}/account/${auth.principal.accountId}`,
      usageIdentifierKey: usageKeyFor(auth.principal.orgId),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      context: toAuthorizerContext(auth),
    };
  } catch (err) {
    if (err instanceof UnauthorizedError) {
      countMetric(metricNames.refusedTokens);
      // API Gateway answers 401 to exactly this message; the cause stays in this function's logs only.
      throw new Error('Unauthorized', { cause: err });
    }
    countMetric(metricNames.authorizerFailures);
    logger.error('authorizer failed', err as Error);
    throw err;
  } finally {
    publishMetrics();
  }
}

/** Every log line carries the Lambda context (request id, cold start...), as on the routes. */
export const handler = middy(authorize).use(injectLambdaContext(logger, { resetKeys: true }));

import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticate } from '../lib/domain/auth.ts';
import { UnauthorizedError } from '../lib/domain/errors.ts';
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
export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    const auth = await authenticate(event.headers);
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
      throw new Error('Unauthorized');
    }
    countMetric(metricNames.authorizerFailures);
    logger.error('authorizer failed', err as Error);
    throw err;
  } finally {
    publishMetrics();
  }
};

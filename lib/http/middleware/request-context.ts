import { logger } from '../logger.ts';
import { readAuthorizerContext } from '../context.ts';
import type { StackMiddleware } from './types.ts';

/**
 * First of the stack: notes when the request started, gives every log line of the invocation the
 * route, the organisation and API Gateway's request id, and reads the authorizer's rate-limit
 * decision before any guard runs, so that a 400/413/415 answer carries the rate-limit headers too.
 */
export function requestContext(): StackMiddleware {
  return {
    before: (request) => {
      request.internal.startedAt = Date.now();
      const { event } = request;
      logger.appendKeys({
        route: `${event.httpMethod} ${event.resource}`,
        orgId: event.requestContext?.authorizer?.orgId,
        apiRequestId: event.requestContext?.requestId,
      });
      request.internal.rate = readAuthorizerContext(event.requestContext?.authorizer)?.rate;
    },
  };
}

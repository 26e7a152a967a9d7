import { RateLimitedError, UnauthorizedError } from '../../vocabulary/errors.ts';
import { readAuthorizerContext } from '../context.ts';
import type { StackMiddleware } from './types.ts';

/**
 * 401 when the authorizer left no caller (a route reached without it), 429 when the authorizer's
 * rate limit refused the request, with its Retry-After. Before the idempotency store and the
 * handler: a refused request writes nothing.
 */
export function callerGate(): StackMiddleware {
  return {
    before: (request) => {
      const auth = readAuthorizerContext(request.event.requestContext?.authorizer);
      if (!auth) throw new UnauthorizedError('Missing or invalid API token');
      if (!auth.rate.allowed) throw new RateLimitedError(auth.rate.retryAfter ?? 1);
    },
  };
}

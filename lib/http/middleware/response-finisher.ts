import { RATE_LIMIT } from '../../model/ratelimit.ts';
import { corsHeaders } from '../cors.ts';
import { errorResponse } from '../errors.ts';
import { logger } from '../logger.ts';
import { NOSNIFF } from '../nosniff.ts';
import { countMetric, metricNames, publishMetrics } from '../metrics.ts';
import type { StackMiddleware, StackRequest } from './types.ts';

/**
 * The one error mapper and the last touch of every response: an error thrown by any step after it
 * in the stack, or by the handler, becomes its status and JSON body (lib/http/errors.ts); then every
 * response, answer or error, gets its headers, is logged and counted (`finish`).
 */
export function responseFinisher(): StackMiddleware {
  return {
    after: (request) => finish(request),
    onError: (request) => {
      request.response = errorResponse(request.error);
      finish(request);
    },
  };
}

/**
 * Adds `nosniff`, the rate-limit and CORS headers to the response and logs it; the stack's `after`/`onError` steps do
 * it, and so does a middleware that answers early (an idempotent replay), since those steps then do not run.
 */
export function finish(request: StackRequest) {
  const response = request.response;
  if (!response) return;
  // An allowed web origin may read every answer, errors included (lib/http/cors.ts).
  response.headers = { ...response.headers, ...NOSNIFF, ...corsHeaders(request.event.headers) };
  const rate = request.internal.rate;
  if (rate) {
    response.headers = {
      ...response.headers,
      'X-RateLimit-Limit': String(RATE_LIMIT.capacity),
      'X-RateLimit-Remaining': String(rate.remaining),
      'X-RateLimit-Reset': String(rate.resetAt),
    };
  }
  logger.info('request', {
    status: response.statusCode,
    latencyMs: Date.now() - (request.internal.startedAt ?? Date.now()),
  });
  countResponse(request.event, response.statusCode);
}

/**
 * Counts the response by route and by status, and writes the invocation's one EMF line (lib/http/metrics.ts).
 * Called from `finish`, the one step every response passes, early answers included.
 */
function countResponse(event: StackRequest['event'], status: number) {
  countMetric(metricNames.requests, 1, { route: `${event.httpMethod} ${event.resource}`, status: String(status) });
  publishMetrics();
}

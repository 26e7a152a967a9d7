import { idempotency } from './idempotency.ts';
import { finish, routeHandler, type ApiRequest, type ApiResult, type StackOptions } from './stack.ts';

export { MAX_BODY_BYTES, pathId, type ApiRequest, type ApiResult } from './stack.ts';

/**
 * The handler of a POST route that creates or transitions something: the shared middy stack
 * (`routeHandler`, stack.ts: header normalizer, body guards, JSON body parser, rate limit, the one
 * error mapper) with `Idempotency-Key` last before the handler. Every other route uses
 * `routeHandler` directly, so its bundle carries no idempotency code; so do POSTs whose response
 * holds a secret (a token), which must never be stored for a replay.
 */
export function apiHandler(fn: (req: ApiRequest) => Promise<ApiResult>, options: StackOptions = {}) {
  return routeHandler(fn, options, [
    idempotency({ takesBody: options.body === true, onReplay: (request) => finish(request as never) }),
  ]);
}

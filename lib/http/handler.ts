import { idempotency } from './idempotency.ts';
import { finish, routeHandler, type ApiRequest, type ApiResult, type StackOptions } from './stack.ts';

export { MAX_BODY_BYTES, pathId, type ApiRequest, type ApiResult } from './stack.ts';

export interface HandlerOptions extends StackOptions {
  /**
   * A POST honours `Idempotency-Key` (default true; `lib/http/idempotency.ts`). False for routes
   * whose response carries a secret, which must never be stored.
   */
  idempotent?: boolean;
}

/**
 * A REST route's handler: the shared middy stack (`routeHandler`, stack.ts: header normalizer, body
 * guards, JSON body parser, rate limit, the one error mapper) with `Idempotency-Key` on POST last
 * before the handler.
 */
export function apiHandler(fn: (req: ApiRequest) => Promise<ApiResult>, options: HandlerOptions = {}) {
  const idempotent =
    options.idempotent === false
      ? [] // middy refuses a middleware with no hooks
      : [idempotency({ takesBody: options.body === true, onReplay: (request) => finish(request as never) })];
  return routeHandler(fn, options, idempotent);
}

import { idempotency } from './idempotency.ts';
import { finish, routeHandler, type ApiRequest, type ApiResult, type StackOptions } from './stack.ts';

/** Marks a handler built by `idempotentHandler`; the route table's `idempotent` rows must carry it (test/unit/routes.test.ts). */
export const HONOURS_IDEMPOTENCY_KEY = Symbol.for('sprint-ticketing.idempotency-key');

/**
 * The handler of a POST route that creates or transitions something: the shared middy stack
 * (`routeHandler`, stack.ts: header normalizer, body guards, JSON body parser, rate limit, the one
 * error mapper) with `Idempotency-Key` last before the handler. Every other route uses
 * `routeHandler` directly, so its bundle carries no idempotency code; so do POSTs whose response
 * holds a secret (a token), which must never be stored for a replay.
 */
export function idempotentHandler<Body = unknown>(
  fn: (req: ApiRequest<NoInfer<Body>>) => Promise<ApiResult>,
  options: StackOptions<Body> = {},
) {
  const handler = routeHandler(fn, options, [
    idempotency({ takesBody: options.body !== undefined, onReplay: (request) => finish(request as never) }),
  ]);
  return Object.assign(handler, { [HONOURS_IDEMPOTENCY_KEY]: true as const });
}

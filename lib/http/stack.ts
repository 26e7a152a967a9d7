import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { asActor } from '../context/actor.ts';
import { issueKeyPattern, pathIdPattern } from '../vocabulary/ids.ts';
import { BadRequestError, NotFoundError, RateLimitedError, UnauthorizedError, ValidationError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import type { RateDecision } from '../model/ratelimit.ts';
import { RATE_LIMIT } from '../model/ratelimit.ts';
import { errorResponse, json } from './errors.ts';
import { logger } from './logger.ts';
import { countMetric, metricNames, publishMetrics } from './metrics.ts';
import { readAuthorizerContext } from './context.ts';
import { parseOrThrow } from '../schemas/validate.ts';
import { expectingVersion } from '../context/versions.ts';
import { etagOf, expectedVersions, isNotModified, secretFreeTag } from './conditional.ts';
import { corsHeaders } from './cors.ts';
import { unknownQueryParameters } from './strict-query.ts';
import { jsonContentTypeRefusal } from './json-content-type.ts';

/** Largest accepted request body (docs/api.md: Requests): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What a route handler receives: trusted caller, raw path/query strings, parsed JSON body. */
export interface ApiRequest<Body = unknown> {
  event: APIGatewayProxyEvent;
  principal: Principal;
  params: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The parsed JSON body, not validated. */
  body: unknown;
  /**
   * The body validated against the route's schema (`StackOptions.body`): 422 `{errors}` listing
   * every problem. A handler calls it after reading its path ids, so a wrong path is 404 first.
   */
  input(): Promise<Body>;
}

/** What a route handler returns; `body` undefined means no content (204). */
export interface ApiResult {
  status: number;
  body?: unknown;
  /** A body that is not JSON, answered as is (its `Content-Type` among `headers`), with an ETag. */
  text?: string;
  headers?: Record<string, string>;
}

/** A route's body schema, loaded on the first request: zod stays out of the cold start (tools/bench). */
export type BodySchema<Body> = (() => Promise<z.ZodType>) & {
  readonly body?: Body;
  /** The body is wrapped in an object named after the resource (`{"issue": {...}}`), left out of messages. */
  readonly wrapped: boolean;
};

/**
 * `bodySchema(() => import('../schemas/issues.ts'), 'IssueCreateBody')`: the named schema
 * of a schema module, loaded when a request first needs it.
 */
export function bodySchema<M, K extends keyof M>(
  load: () => Promise<M>,
  name: K,
  options: { wrapped?: boolean } = {},
): BodySchema<OutputOf<M[K]>> {
  return Object.assign(async () => (await load())[name] as z.ZodType, { wrapped: options.wrapped ?? true });
}

type OutputOf<S> = S extends z.ZodType ? z.output<S> : never;

export interface StackOptions<Body = unknown> {
  /** The route takes a JSON body (POST/PUT/PATCH with a payload) valid against this schema. */
  body?: BodySchema<Body>;
  /**
   * The route is a conditional write (`If-Match`): PATCH, PUT and DELETE of a resource are, a POST
   * says so here (the sprint transitions).
   */
  conditional?: boolean;
  /**
   * The answer carries a token or a secret, shown once (the route table's `secret`): it goes out
   * with `Cache-Control: no-store`, so that no browser or proxy keeps it. A versioned resource (a
   * webhook with its secret) still carries its ETag, usable with `If-Match` at once: the tag of the
   * resource as a GET shows it, secret left out, so that no header fingerprints the secret.
   */
  secret?: boolean;
}

type Event = APIGatewayProxyEvent & { body: unknown };
interface Internal extends Record<string, unknown> {
  rate?: RateDecision;
  startedAt?: number;
}

/**
 * The middy stack every route shares, in this order: header normalizer -> body guards
 * (413/415) -> JSON body parser (400) -> rate limit (429) -> unknown query parameters (422,
 * strict-query.ts) -> `last` (the REST routes' idempotency)
 * -> handler (zod validation, domain call) -> the one error mapper. Rate-limit headers go on every
 * response, errors included, and every response is counted by route and status (one EMF line).
 *
 * POST routes that create or transition use `idempotentHandler` (idempotent-handler.ts), which puts
 * `Idempotency-Key` into `last`. Every other route (reads, updates, deletes, token-issuing POSTs,
 * `/mcp`) uses this directly: its bundle then leaves out the idempotency code (Powertools'
 * middleware and JMESPath, whose modules run code at load, so the bundler keeps them whenever they
 * are imported).
 */
export function routeHandler<Body = unknown>(
  fn: (req: ApiRequest<NoInfer<Body>>) => Promise<ApiResult>,
  options: StackOptions<Body> = {},
  last: MiddlewareObj<Event, APIGatewayProxyResult, Error, Context, Internal>[] = [],
) {
  const takesBody = options.body !== undefined;
  const stack = middy<Event, APIGatewayProxyResult, Error, Context, Internal>()
    // Every log line of the invocation carries the Lambda context (request id, cold start...), the
    // route, the organisation and API Gateway's request id; the keys go when the invocation ends.
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      before: (request) => {
        request.internal.startedAt = Date.now();
        const { event } = request;
        logger.appendKeys({
          route: `${event.httpMethod} ${event.resource}`,
          orgId: event.requestContext?.authorizer?.orgId,
          apiRequestId: event.requestContext?.requestId,
        });
        // Known before any guard runs, so that 400/413/415 answers carry the rate-limit headers too.
        request.internal.rate = readAuthorizerContext(request.event.requestContext?.authorizer)?.rate;
      },
    })
    .use(httpHeaderNormalizer({ canonical: false }))
    .use({ before: (request) => guardBody(request.event, takesBody) });
  if (takesBody) stack.use(httpJsonBodyParser({ disableContentTypeCheck: true }));
  return (
    stack
      .use({
        before: (request) => {
          const auth = readAuthorizerContext(request.event.requestContext?.authorizer);
          if (!auth) throw new UnauthorizedError('Missing or invalid API token');
          if (!auth.rate.allowed) throw new RateLimitedError(auth.rate.retryAfter ?? 1);
          // Before the idempotency store and the handler: a refused query writes nothing, keys included.
          const unknown = unknownQueryParameters(request.event);
          if (unknown.length > 0) throw new ValidationError(unknown);
        },
      })
      .use({
        after: (request) => finish(request),
        onError: (request) => {
          request.response = errorResponse(request.error);
          finish(request);
        },
      })
      // Last before the handler: a refused or limited request never touches the idempotency store,
      // and the stored response is the handler's own, without this request's rate-limit headers.
      .use(last)
      .handler(async (event) => {
        const auth = readAuthorizerContext(event.requestContext.authorizer);
        if (!auth) throw new UnauthorizedError('Missing or invalid API token');
        const schema = options.body;
        const expected = isConditional(event, options) ? expectedVersions(event) : undefined;
        // Every write the handler makes records the caller as its actor (lib/context/actor.ts), and the
        // write of its resource checks the versions If-Match names (lib/db/versions.ts).
        const result = await asActor(auth.principal.accountId, () =>
          expectingVersion(expected, () =>
            fn({
              event,
              principal: auth.principal,
              params: event.pathParameters ?? {},
              query: event.queryStringParameters ?? {},
              body: event.body,
              input: async () => {
                if (!schema) throw new Error('this route takes no body');
                return parseOrThrow(await schema(), event.body, schema.wrapped) as Body;
              },
            }),
          ),
        );
        if (result.text !== undefined) {
          const headers = { ...result.headers, ETag: etagOf(result.text, result.headers) };
          if (event.httpMethod === 'GET' && isNotModified(event, headers.ETag)) return { statusCode: 304, headers, body: '' };
          return { statusCode: result.status, headers, body: result.text };
        }
        if (result.body === undefined) return { statusCode: result.status, headers: { ...result.headers }, body: '' };
        if (options.secret) {
          const tag = secretFreeTag(result.body);
          return json(result.status, result.body, {
            ...result.headers,
            'Cache-Control': 'no-store',
            ...(tag === undefined ? {} : { ETag: tag }),
          });
        }
        const headers = { ...result.headers, ETag: etagOf(result.body, result.headers) };
        // The same headers as the 200 would carry (the rate-limit headers come in `finish`), no body.
        if (event.httpMethod === 'GET' && isNotModified(event, headers.ETag)) return { statusCode: 304, headers, body: '' };
        return json(result.status, result.body, headers);
      })
  );
}

/** PATCH, PUT and DELETE of a resource (a path with ids), and the POSTs that say so. */
function isConditional(event: Event, options: { conditional?: boolean | undefined }): boolean {
  if (options.conditional) return true;
  return ['PATCH', 'PUT', 'DELETE'].includes(event.httpMethod) && (event.resource ?? '').includes('{');
}

type Request = { event: Event; response: APIGatewayProxyResult | null | undefined; internal: Internal };

/**
 * Adds the rate-limit and CORS headers to the response and logs it; the stack's `after`/`onError` steps do
 * it, and so does a middleware that answers early (an idempotent replay), since those steps then do not run.
 */
export function finish(request: Request) {
  const response = request.response;
  if (!response) return;
  // An allowed web origin may read every answer, errors included (lib/http/cors.ts).
  response.headers = { ...response.headers, ...corsHeaders(request.event.headers) };
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
function countResponse(event: Event, status: number) {
  countMetric(metricNames.requests, 1, { route: `${event.httpMethod} ${event.resource}`, status: String(status) });
  publishMetrics();
}

/**
 * 413 for bodies over 1 MiB, 415 for a Content-Type on a write that is not JSON or names a charset
 * other than UTF-8 (json-content-type.ts); an empty body reads as `{}`.
 */
function guardBody(event: Event, takesBody: boolean) {
  if (!takesBody) return;
  const raw = typeof event.body === 'string' ? event.body : '';
  const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw, 'utf8');
  if (bytes > MAX_BODY_BYTES) throw new BadRequestError(413, 'Request body is larger than 1 MiB');
  if (raw.trim() === '') {
    event.body = '{}';
    event.isBase64Encoded = false;
    return;
  }
  const refusal = jsonContentTypeRefusal(event.headers?.['content-type'] ?? '');
  if (refusal !== undefined) throw new BadRequestError(415, refusal);
}

/** The `issue_key` of a path ("APL-42", any case); 404 for a malformed one. */
export function issueKeyParam(req: ApiRequest<unknown>): string {
  const key = req.params.issue_key ?? '';
  if (!issueKeyPattern.test(key)) throw new NotFoundError(`Issue ${key}`);
  return key;
}

/** A positive integer path id; anything else is 404 (an id that is not an id names nothing). */
export function pathId(req: ApiRequest<unknown>, name: string, what: string): number {
  const raw = req.params[name] ?? '';
  if (!pathIdPattern.test(raw) || !Number.isSafeInteger(Number(raw))) throw new NotFoundError(what);
  return Number(raw);
}

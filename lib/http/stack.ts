import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { asActor } from '../context/actor.ts';
import { issueKeyPattern, pathIdPattern } from '../vocabulary/ids.ts';
import { NotFoundError, UnauthorizedError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import { json } from './errors.ts';
import { logger } from './logger.ts';
import { readAuthorizerContext } from './context.ts';
import { parseOrThrow } from '../schemas/validate.ts';
import { expectingVersion } from '../context/versions.ts';
import { etagOf, expectedVersions, isNotModified, secretFreeTag } from './conditional.ts';
import { bodyGuard } from './middleware/body-guard.ts';
import { callerGate } from './middleware/caller-gate.ts';
import { requestContext } from './middleware/request-context.ts';
import { responseFinisher } from './middleware/response-finisher.ts';
import { strictQuery } from './middleware/strict-query.ts';
import type { StackEvent, StackInternal, StackMiddleware } from './middleware/types.ts';

export { MAX_BODY_BYTES } from './middleware/body-guard.ts';
export { finish } from './middleware/response-finisher.ts';

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
export type BodySchema<Body> = (() => Promise<z.ZodMiniType>) & {
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
  return Object.assign(async () => (await load())[name] as z.ZodMiniType, { wrapped: options.wrapped ?? true });
}

type OutputOf<S> = S extends z.ZodMiniType ? z.output<S> : never;

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
  /**
   * The body names issue statuses, which may be a project's own states: how a status that is no
   * category is read (lib/http/project-statuses.ts). Given by the issue write handlers only, so
   * that no other bundle carries the workflow code.
   */
  statuses?: <B>(event: StackEvent, principal: Principal, parse: () => Promise<B>) => Promise<B>;
}

type Event = StackEvent;

/**
 * The middy stack every route shares, in this order (each step a named unit of lib/http/middleware/,
 * tested on its own):
 *
 * 1. `injectLambdaContext`: every log line carries the Lambda context (request id, cold start...);
 *    the keys go when the invocation ends;
 * 2. `requestContext`: the route, organisation and request id on every log line; the rate-limit decision;
 * 3. `httpHeaderNormalizer`: header names in lower case;
 * 4. `bodyGuard`: 413 over 1 MiB, 415 for a body that is not JSON in UTF-8 (routes with a body);
 * 5. `httpJsonBodyParser`: 400 for malformed JSON (routes with a body);
 * 6. `callerGate`: 401 without a caller, 429 over the rate limit;
 * 7. `strictQuery`: 422 for a query parameter the operation does not declare;
 * 8. `responseFinisher`: the one error mapper, then the rate-limit and CORS headers, the log line and
 *    the count of every response;
 * 9. `last` (the REST routes' idempotency), last before the handler: a refused or limited request never
 *    touches the idempotency store, and the stored response is the handler's own, without this
 *    request's rate-limit headers;
 * 10. the handler: zod validation, the use case, the response with its ETag (`answer`).
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
  last: MiddlewareObj<Event, APIGatewayProxyResult, Error, Context, StackInternal>[] = [],
) {
  const takesBody = options.body !== undefined;
  const steps: StackMiddleware[] = [
    injectLambdaContext(logger, { resetKeys: true }),
    requestContext(),
    httpHeaderNormalizer({ canonical: false }),
    bodyGuard(takesBody),
    ...(takesBody ? [httpJsonBodyParser({ disableContentTypeCheck: true })] : []),
    callerGate(),
    strictQuery(),
    responseFinisher(),
    ...last,
  ];
  return middy<Event, APIGatewayProxyResult, Error, Context, StackInternal>()
    .use(steps)
    .handler(async (event) => {
      const auth = readAuthorizerContext(event.requestContext.authorizer);
      if (!auth) throw new UnauthorizedError('Missing or invalid API token');
      const schema = options.body;
      const expected = isConditional(event, options) ? expectedVersions(event) : undefined;
      // Every write the handler makes records the caller as its actor (lib/context/actor.ts), and the
      // write of its resource checks the versions If-Match names (lib/db/core/versions.ts).
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
              const parse = async () => parseOrThrow(await schema(), event.body, schema.wrapped) as Body;
              return options.statuses ? options.statuses(event, auth.principal, parse) : parse();
            },
          }),
        ),
      );
      return answer(event, result, options);
    });
}

/**
 * The handler's result as the response: a text answered as is, no body as 204-style empty, a JSON
 * body; each with its ETag (304 for a GET whose `If-None-Match` names it), a secret with
 * `Cache-Control: no-store` and the tag of the resource without its secret.
 */
function answer(event: Event, result: ApiResult, options: { secret?: boolean | undefined }): APIGatewayProxyResult {
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
}

/** PATCH, PUT and DELETE of a resource (a path with ids), and the POSTs that say so. */
function isConditional(event: Event, options: { conditional?: boolean | undefined }): boolean {
  if (options.conditional) return true;
  return ['PATCH', 'PUT', 'DELETE'].includes(event.httpMethod) && (event.resource ?? '').includes('{');
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

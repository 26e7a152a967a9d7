import fc from 'fast-check';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { bodyGuard, guardBody, MAX_BODY_BYTES } from '../../lib/http/middleware/body-guard.ts';
import { callerGate } from '../../lib/http/middleware/caller-gate.ts';
import { requestContext } from '../../lib/http/middleware/request-context.ts';
import { finish, responseFinisher } from '../../lib/http/middleware/response-finisher.ts';
import { strictQuery } from '../../lib/http/middleware/strict-query.ts';
import type { StackEvent, StackRequest } from '../../lib/http/middleware/types.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';
import {
  BadRequestError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '../../lib/vocabulary/errors.ts';

const authorizer = (over: Record<string, unknown> = {}) => ({
  orgId: '1',
  accountId: '2',
  role: 'member',
  tokenHash: 'h',
  rateAllowed: 'true',
  rateRemaining: '599',
  rateResetAt: '1700000060',
  ...over,
});

const event = (over: Partial<StackEvent> = {}): StackEvent =>
  ({
    httpMethod: 'POST',
    resource: '/api/v1/projects',
    path: '/api/v1/projects',
    headers: { 'content-type': 'application/json' },
    queryStringParameters: null,
    pathParameters: null,
    body: '{"project":{}}',
    isBase64Encoded: false,
    requestContext: { authorizer: authorizer(), requestId: 'r-1' },
    ...over,
  }) as unknown as StackEvent;

const request = (e: StackEvent = event()) => ({ event: e, response: undefined, internal: {} }) as StackRequest;
type Step = { before?: (r: never) => unknown; after?: (r: never) => unknown; onError?: (r: never) => unknown };
const before = (step: Step, r: StackRequest) => step.before?.(r as never);

describe('requestContext', () => {
  it('notes the start and the authorizer rate decision before any guard runs', () => {
    const r = request();
    before(requestContext(), r);
    expect(r.internal.startedAt).toBeTypeOf('number');
    expect(r.internal.rate).toEqual({ allowed: true, remaining: 599, resetAt: 1700000060 });
  });

  it('leaves the rate unknown without an authorizer context', () => {
    const r = request(event({ requestContext: {} as never }));
    before(requestContext(), r);
    expect(r.internal.rate).toBeUndefined();
  });
});

describe('bodyGuard', () => {
  it('refuses a body over 1 MiB with 413, a non-JSON content type with 415, and reads an empty body as {}', () => {
    const big = event({ body: 'x'.repeat(MAX_BODY_BYTES + 1) });
    expect(() => guardBody(big, true)).toThrow(new BadRequestError(413, 'Request body is larger than 1 MiB'));
    const xml = event({ headers: { 'content-type': 'application/xml' } });
    expect(() => guardBody(xml, true)).toThrow(BadRequestError);
    const empty = event({ body: '  ' });
    guardBody(empty, true);
    expect(empty.body).toBe('{}');
  });

  it('counts a base64 body (as API Gateway hands every body over) by its decoded bytes, padding included: 1 MiB passes, one byte more is 413', () => {
    for (const size of [MAX_BODY_BYTES, MAX_BODY_BYTES - 1, MAX_BODY_BYTES - 2]) {
      const body = Buffer.alloc(size, 'x').toString('base64');
      expect(() => guardBody(event({ body, isBase64Encoded: true }), true), `${size} bytes`).not.toThrow();
    }
    const over = event({ body: Buffer.alloc(MAX_BODY_BYTES + 1, 'x').toString('base64'), isBase64Encoded: true });
    expect(() => guardBody(over, true)).toThrow(new BadRequestError(413, 'Request body is larger than 1 MiB'));
  });

  it('lets anything through on a route without a body', () => {
    const r = request(event({ body: 'x'.repeat(MAX_BODY_BYTES + 1), headers: { 'content-type': 'text/plain' } }));
    expect(() => before(bodyGuard(false), r)).not.toThrow();
  });
});

describe('callerGate', () => {
  it('answers 401 without a caller and 429 when the rate limit refused, with its Retry-After', () => {
    expect(() => before(callerGate(), request(event({ requestContext: {} as never })))).toThrow(UnauthorizedError);
    const limited = event({ requestContext: { authorizer: authorizer({ rateAllowed: 'false', rateRetryAfter: '7' }) } as never });
    let thrown: unknown;
    try {
      before(callerGate(), request(limited));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RateLimitedError);
    expect((thrown as RateLimitedError).retryAfterSeconds).toBe(7);
    expect(() => before(callerGate(), request())).not.toThrow();
  });
});

describe('strictQuery', () => {
  it('refuses a query parameter the operation does not declare with 422, naming it', () => {
    const e = event({ httpMethod: 'GET', queryStringParameters: { bogus: '1' } });
    expect(() => before(strictQuery(), request(e))).toThrow(ValidationError);
    expect(() =>
      before(strictQuery(), request(event({ httpMethod: 'GET', queryStringParameters: { page: '2' } }))),
    ).not.toThrow();
  });
});

describe('responseFinisher', () => {
  it('maps an error to its status and JSON body, with the rate-limit and CORS headers', () => {
    const r = { ...request(), error: new NotFoundError('Project') } as StackRequest & { error: Error };
    r.internal.rate = { allowed: true, remaining: 5, resetAt: 9 };
    (responseFinisher().onError as (x: never) => void)(r as never);
    const response = r.response as APIGatewayProxyResult;
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: 'Project not found' });
    expect(response.headers).toMatchObject({ 'X-RateLimit-Remaining': '5', 'X-RateLimit-Reset': '9' });
  });

  it('finishes an answer with the same headers, and leaves a missing response alone', () => {
    const r = request();
    r.response = { statusCode: 200, headers: {}, body: '{}' };
    r.internal.rate = { allowed: true, remaining: 1, resetAt: 2 };
    finish(r);
    expect(r.response.headers).toMatchObject({ 'X-RateLimit-Limit': expect.any(String), 'X-RateLimit-Remaining': '1' });
    const none = request();
    expect(() => finish(none)).not.toThrow();
  });
});

describe('the stack on hostile input', () => {
  // A route with a body, whose handler answers what it was given once the body is valid.
  const handler = routeHandler(async (req) => ({ status: 201, body: { received: await req.input() } }), {
    body: bodySchema(() => import('../../lib/schemas/projects.ts'), 'ProjectCreateBody'),
  });
  const contentTypes = fc.oneof(
    fc.constant('application/json'),
    fc.constant('application/json; charset=utf-8'),
    fc.constant('application/json; charset=latin1'),
    fc.constant('text/plain'),
    fc.string(),
  );
  const bodies = fc.oneof(
    fc.string(),
    fc.json(),
    fc.constant('{"project":'),
    fc.constant('{"project":{"name":"A","prefix":"AB"}}'),
    fc.jsonValue().map((v) => JSON.stringify({ project: v })),
  );
  const queries = fc.option(fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), { nil: null });

  it('never throws: every answer is a JSON error of the documented shape, or the handler own', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, contentTypes, fc.boolean(), queries, async (body, contentType, base64, query) => {
        const e = event({
          body,
          headers: { 'Content-Type': contentType },
          isBase64Encoded: base64,
          queryStringParameters: query,
        });
        const response = (await handler(e as never, {} as never)) as APIGatewayProxyResult;
        expect([201, 400, 413, 415, 422]).toContain(response.statusCode);
        const parsed = JSON.parse(response.body) as Record<string, unknown>;
        if (response.statusCode === 201) return;
        if (response.statusCode === 422) {
          expect(Array.isArray(parsed.errors)).toBe(true);
          expect((parsed.errors as unknown[]).every((m) => typeof m === 'string')).toBe(true);
        } else {
          expect(parsed.error).toBeTypeOf('string');
        }
        expect(response.headers?.['X-RateLimit-Remaining']).toBe('599');
      }),
      { numRuns: 300 },
    );
  });
});

import httpJsonBodyParser from '@middy/http-json-body-parser';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  TransitionError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from '../../lib/vocabulary/errors.ts';
import { errorResponse } from '../../lib/http/errors.ts';

const bodyOf = (err: unknown) => JSON.parse(errorResponse(err).body) as unknown;

/** The error middy's JSON body parser throws for this body. */
function bodyParserError(body: string | undefined): unknown {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  try {
    (parser.before as (request: unknown) => void)({ event: { headers: { 'content-type': 'application/json' }, body } });
  } catch (err) {
    return err;
  }
  throw new Error(`parser accepted ${body}`);
}

describe('the error mapper', () => {
  it('maps each typed error to its status and error body shape', () => {
    const cases: [unknown, number, unknown][] = [
      [new NotFoundError('Project'), 404, { error: 'Project not found' }],
      [
        new ValidationError(['name is required', 'prefix is required']),
        422,
        { errors: ['name is required', 'prefix is required'] },
      ],
      [new ConflictError(['prefix has already been taken']), 422, { errors: ['prefix has already been taken'] }],
      [
        new TransitionError('Only a sprint in planning can be activated'),
        422,
        { error: 'Only a sprint in planning can be activated' },
      ],
      [new ForbiddenError('Only admins may delete projects'), 403, { error: 'Only admins may delete projects' }],
      [new UnauthorizedError('Invalid API token'), 401, { error: 'Invalid API token' }],
      [new BadRequestError(400, 'Request body is not valid JSON'), 400, { error: 'Request body is not valid JSON' }],
      [new BadRequestError(413, 'Request body is larger than 1 MiB'), 413, { error: 'Request body is larger than 1 MiB' }],
      [
        new BadRequestError(415, 'Content-Type must be application/json'),
        415,
        { error: 'Content-Type must be application/json' },
      ],
      [new RateLimitedError(3), 429, { error: expect.any(String) }],
      [new UnavailableError(), 503, { error: expect.any(String) }],
    ];
    for (const [err, status, body] of cases) {
      const res = errorResponse(err);
      expect(res.statusCode, String(err)).toBe(status);
      expect(res.headers?.['Content-Type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual(body);
    }
  });

  it('adds Retry-After (whole seconds) to 429 and 503', () => {
    expect(errorResponse(new RateLimitedError(7)).headers?.['Retry-After']).toBe('7');
    expect(errorResponse(new UnavailableError()).headers?.['Retry-After']).toBe('1');
    expect(errorResponse(new NotFoundError('Project')).headers?.['Retry-After']).toBeUndefined();
  });

  it('answers an unknown error with 500 {error} and nothing of its internals', () => {
    const secret = new Error('connect ECONNREFUSED 10.0.0.7:8000 table=secret-table');
    secret.stack = 'Error: at /var/task/lib/db/secret.ts:12:3';
    for (const err of [
      secret,
      new TypeError('x is undefined'),
      'a string',
      null,
      undefined,
      { statusCode: 418, message: 'teapot' },
    ]) {
      const res = errorResponse(err);
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(res.body)).toEqual({ error: 'Internal server error' });
    }
  });

  it('answers DynamoDB throttling and transaction conflicts with 503 and Retry-After', () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    const conflict = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });
    for (const err of [throttled, conflict]) {
      const res = errorResponse(err);
      expect(res.statusCode).toBe(503);
      expect(res.headers?.['Retry-After']).toBe('1');
      expect(JSON.parse(res.body)).toEqual({ error: expect.any(String) });
      expect(res.body).not.toContain('cancelled');
    }
  });

  it('answers a cancelled transaction whose condition failed (not retryable) with 500, not 503', () => {
    const failed = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
    });
    expect(errorResponse(failed).statusCode).toBe(500);
  });

  it("answers middy's JSON body parser errors with 400 {error}, hiding the parser's text", () => {
    for (const body of ['{bad', '{"a":', '', undefined, '{"__proto__":{"x":1}}']) {
      const err = bodyParserError(body);
      const res = errorResponse(err);
      expect(res.statusCode, String(body)).toBe(400);
      expect(bodyOf(err)).toEqual({ error: 'Request body is not valid JSON' });
    }
  });
});

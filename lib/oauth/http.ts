import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { OAuthFailure } from '../services/oauth-grants.ts';
import { errorResponse } from '../http/errors.ts';
import { logger } from '../http/logger.ts';
import { countMetric, metricNames, publishMetrics } from '../http/metrics.ts';
import { unknownQueryAnswer } from '../http/strict-query.ts';
import { withNosniff } from '../http/nosniff.ts';

/** Largest form or registration body read (far above any real one). */
const MAX_BODY_BYTES = 64 * 1024;

/** OAuth answers are never cached (RFC 6749 §5.1), errors included. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A JSON answer of the authorization server. */
export const oauthJson = (status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...NO_STORE, ...headers },
  body: JSON.stringify(body),
});

/** The raw body as text (API Gateway may hand it over base64-encoded). */
export function rawBody(event: APIGatewayProxyEvent): string {
  if (typeof event.body !== 'string') return '';
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) throw new OAuthFailure(400, 'invalid_request', 'The body is too large');
  return text;
}

const header = (event: APIGatewayProxyEvent, name: string) =>
  Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * An `application/x-www-form-urlencoded` body as OAuth sends it (RFC 6749 §3.2): each parameter
 * once (a repeated one is refused, §3.1), an empty value read as absent.
 */
export function formBody(event: APIGatewayProxyEvent): Record<string, string | undefined> {
  const type = header(event, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new OAuthFailure(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  }
  const form: Record<string, string | undefined> = {};
  for (const [name, value] of new URLSearchParams(rawBody(event))) {
    // Own parameters only: `toString` or `__proto__` is a parameter like any other, never one the object inherits.
    if (Object.hasOwn(form, name)) throw new OAuthFailure(400, 'invalid_request', `Parameter ${name} is repeated`);
    form[name] = value === '' ? undefined : value;
  }
  return form;
}

/**
 * The handler of the authorization server's routes (public: no authorizer in front): the strict
 * query (422, but on the routes in `anyQuery`), then `fn`; an `OAuthFailure` becomes OAuth's error
 * body, anything else the service's one error mapper (500/503). Logged and counted as every route.
 */
export function oauthHandler(
  fn: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>,
  anyQuery: ReadonlySet<string> = new Set(),
) {
  return middy(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const started = Date.now();
    logger.appendKeys({ route: `${event.httpMethod} ${event.resource}`, apiRequestId: event.requestContext?.requestId });
    let response: APIGatewayProxyResult;
    try {
      const strict = !anyQuery.has(`${event.httpMethod} ${event.resource}`);
      response = (strict && unknownQueryAnswer(event, NO_STORE)) || (await fn(event));
    } catch (err) {
      if (err instanceof OAuthFailure) {
        response = oauthJson(
          err.status,
          { error: err.error, error_description: err.description },
          err.status === 429 ? { 'Retry-After': String(err.retryAfterSeconds) } : {},
        );
      } else {
        const mapped = errorResponse(err);
        response = { ...mapped, headers: { ...mapped.headers, ...NO_STORE } };
      }
    }
    response = withNosniff(response);
    logger.info('request', { status: response.statusCode, latencyMs: Date.now() - started });
    countMetric(metricNames.requests, 1, { route: `${event.httpMethod} ${event.resource}`, status: String(response.statusCode) });
    publishMetrics();
    return response;
  }).use(injectLambdaContext(logger, { resetKeys: true }));
}

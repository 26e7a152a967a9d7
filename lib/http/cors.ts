/**
 * CORS: which web origins may call the API from a browser (none unless configured). The origins
 * come from `CORS_ORIGINS` (comma-separated, exact origins such as `https://app.example.com`): the
 * CDK stack sets it on every route function from its `corsOrigins` context value (infra/stage.ts),
 * `npm start` passes its own environment. Read once, on the first answer.
 */
import { config, parseOrigins } from '../config.ts';

/** Response headers a browser script may read: paging, rate limit, retry and ETag. */
export const EXPOSED_HEADERS = [
  'Link',
  'X-Total-Count',
  'X-Page',
  'X-Per-Page',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Idempotent-Replayed',
] as const;

/** Request headers a browser script may send (the preflight's `Access-Control-Allow-Headers`). */
export const ALLOWED_HEADERS = [
  'Authorization',
  'X-API-Token',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
] as const;

export const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** How long a browser may keep a preflight's answer (seconds). */
export const PREFLIGHT_MAX_AGE = 600;

export { parseOrigins };

/** The configured origins (`CORS_ORIGINS`, lib/config.ts), read on first use. */
export const allowedOrigins = (): string[] => config().corsOrigins;

/** The request's `Origin` header, matched case-insensitively. */
function originOf(headers: Record<string, string | undefined> | null | undefined): string | undefined {
  return Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'origin')?.[1] ?? undefined;
}

/**
 * The CORS headers of an answer to a request from `Origin`: none when the origin is not allowed
 * (the browser then refuses the answer to the script), errors included.
 */
export function corsHeaders(
  requestHeaders: Record<string, string | undefined> | null | undefined,
  origins: readonly string[] = allowedOrigins(),
): Record<string, string> {
  const origin = originOf(requestHeaders);
  if (origins.length === 0) return {};
  const allowed = origin !== undefined && origins.includes(origin);
  return {
    Vary: 'Origin',
    ...(allowed ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', ') } : {}),
  };
}

/** The headers of a preflight answer (204) for an allowed origin; undefined for any other. */
export function preflightHeaders(
  requestHeaders: Record<string, string | undefined> | null | undefined,
  origins: readonly string[] = allowedOrigins(),
): Record<string, string> | undefined {
  const origin = originOf(requestHeaders);
  if (origin === undefined || !origins.includes(origin)) return undefined;
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE),
    Vary: 'Origin',
  };
}

/**
 * `Access-Control-Allow-Origin` of API Gateway's own answers (its 401, 403, 404, 413, 429...;
 * lib/http/gateway-responses.ts), which cannot look at the request: the one configured origin, or
 * `*` when there are several (these answers carry only an `{error}`, never data).
 */
export function gatewayResponseOrigin(origins: readonly string[]): string | undefined {
  if (origins.length === 0) return undefined;
  return origins.length === 1 ? origins[0] : '*';
}

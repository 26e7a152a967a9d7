import { BadRequestError } from '../../vocabulary/errors.ts';
import { jsonContentTypeRefusal } from '../json-content-type.ts';
import type { StackEvent, StackMiddleware } from './types.ts';

/** Largest accepted request body (docs/api.md: Requests): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Before the JSON body parser, on a route that takes a body: 413 for a body over 1 MiB, 415 for a
 * Content-Type that is not JSON or names a charset other than UTF-8 (json-content-type.ts); an
 * empty body reads as `{}`. A route without a body lets anything through (its body is never read).
 */
export function bodyGuard(takesBody: boolean): StackMiddleware {
  return { before: (request) => guardBody(request.event, takesBody) };
}

/** `bodyGuard`'s check of one event: throws the 413 or 415, or rewrites an empty body as `{}`. */
export function guardBody(event: StackEvent, takesBody: boolean): void {
  if (!takesBody) return;
  const raw = typeof event.body === 'string' ? event.body : '';
  // A base64 body (a binary media type) counts its decoded bytes, padding left out.
  const bytes = Buffer.byteLength(raw, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes > MAX_BODY_BYTES) throw new BadRequestError(413, 'Request body is larger than 1 MiB');
  if (raw.trim() === '') {
    event.body = '{}';
    event.isBase64Encoded = false;
    return;
  }
  const refusal = jsonContentTypeRefusal(event.headers?.['content-type'] ?? '');
  if (refusal !== undefined) throw new BadRequestError(415, refusal);
}

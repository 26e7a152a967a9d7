import { BadRequestError, ValidationError } from '../../vocabulary/errors.ts';
import { nestingMessage, textNestsDeeper } from '../../vocabulary/nesting.ts';
import { jsonContentTypeRefusal } from '../json-content-type.ts';
import type { StackEvent, StackMiddleware } from './types.ts';

/** Largest accepted request body (docs/api.md: Requests): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Before the JSON body parser, on a route that takes a body: 413 for a body over 1 MiB, 415 for a
 * Content-Type that is not JSON or names a charset other than UTF-8 (json-content-type.ts), 400 for
 * bytes that are not UTF-8, 422 for objects and arrays nested deeper than `MAX_NESTING`; an empty
 * body reads as `{}`. A route without a body lets anything through (its body is never read).
 */
export function bodyGuard(takesBody: boolean): StackMiddleware {
  return { before: (request) => guardBody(request.event, takesBody) };
}

/** `bodyGuard`'s check of one event: throws the 413, 415, 400 or 422, or rewrites an empty body as `{}`. */
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
  jsonText(raw, event.isBase64Encoded);
}

/**
 * A JSON body's text, refused before it is parsed: 400 for bytes that are not UTF-8, 422 for
 * objects and arrays nested deeper than `MAX_NESTING` (the stack's routes, and `/mcp`).
 */
export function jsonText(raw: string, base64: boolean): string {
  const text = utf8Text(raw, base64);
  if (textNestsDeeper(text)) throw new ValidationError([nestingMessage('body')]);
  return text;
}

/** In `u` mode a surrogate range matches only a surrogate that is not half of a pair. */
const loneSurrogate = /[\uD800-\uDFFF]/u;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as text, refused (400) when its bytes are not UTF-8: decoding them leniently would store
 * U+FFFD in place of each bad byte. A base64 body is decoded strictly; a text body, which the event
 * carries as a string, must hold no lone surrogate (one that no UTF-8 byte sequence could give).
 */
function utf8Text(raw: string, base64: boolean): string {
  if (!base64) {
    if (loneSurrogate.test(raw)) throw notUtf8();
    return raw;
  }
  try {
    return strictUtf8.decode(Buffer.from(raw, 'base64'));
  } catch {
    throw notUtf8();
  }
}

const notUtf8 = () =>
  new BadRequestError(400, 'Request body is not valid UTF-8: send JSON in UTF-8, with charset=utf-8 or no charset');

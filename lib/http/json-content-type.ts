/**
 * What a JSON body may be declared as (docs/api.md: Requests): `application/json` or a `+json`
 * media type, in UTF-8. A JSON text exchanged between systems is UTF-8 (RFC 8259 §8.1): a body
 * declared in another charset would be read as UTF-8 all the same and stored garbled ("café" in
 * ISO-8859-1 as "caf\uFFFD"), so it is refused (415) instead. `charset=utf-8` (any case, quoted or
 * not) and no charset at all are accepted.
 */

const jsonMediaType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The accepted charset, as the refusal names it. */
export const JSON_CHARSET = 'utf-8';

/** The `charset` parameter of a Content-Type, as written (quotes removed); undefined when there is none. */
export function declaredCharset(contentType: string): string | undefined {
  for (const parameter of contentType.split(';').slice(1)) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/**
 * Why a request body declared with `contentType` cannot be read as JSON, as the 415's message;
 * undefined when it can.
 */
export function jsonContentTypeRefusal(contentType: string): string | undefined {
  if (!jsonMediaType.test(contentType)) return 'Content-Type must be application/json';
  return charsetRefusal(contentType);
}

/** Why the charset a Content-Type declares is not UTF-8, as the 415's message; undefined when it is, or none is declared. */
export function charsetRefusal(contentType: string): string | undefined {
  const charset = declaredCharset(contentType);
  if (charset === undefined || charset.toLowerCase() === JSON_CHARSET) return undefined;
  return `Content-Type charset must be ${JSON_CHARSET} (got '${charset}'): send the body in UTF-8, with charset=${JSON_CHARSET} or no charset`;
}

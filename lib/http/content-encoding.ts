/**
 * Content codings the service can answer with, most preferred first on a tie: brotli is smaller
 * than gzip for the same text.
 */
export const contentCodings = ['br', 'gzip'] as const;
export type ContentCoding = (typeof contentCodings)[number];

/** The weight (`q`) of each coding an `Accept-Encoding` header names; `*` stands for any other. */
function weights(header: string): Map<string, number> {
  const named = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim());
    if (name === '') continue;
    const q = params.find((p) => /^q=/i.test(p));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    named.set(name.toLowerCase(), Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0);
  }
  return named;
}

/**
 * The coding to answer with, of those `offered`, for a request's `Accept-Encoding` (RFC 9110,
 * 12.5.3): the one with the highest weight above 0 (`br` before `gzip` on a tie), a coding not named
 * weighing what `*` does; undefined (identity, the body as is) when the header is absent or accepts
 * none of them (`gzip;q=0`, `identity`).
 */
export function preferredCoding(
  acceptEncoding: string | undefined,
  offered: readonly ContentCoding[] = contentCodings,
): ContentCoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const named = weights(acceptEncoding);
  const any = named.get('*') ?? 0;
  let best: { coding: ContentCoding; weight: number } | undefined;
  for (const coding of contentCodings) {
    if (!offered.includes(coding)) continue;
    const weight = named.get(coding) ?? any;
    if (weight > 0 && (best === undefined || weight > best.weight)) best = { coding, weight };
  }
  return best?.coding;
}

/**
 * The REST API's binary media types (infra/constructs/service-api.ts), which the local gateway
 * follows too. API Gateway turns a Lambda answer's base64 body (`isBase64Encoded`: the OpenAPI
 * document's compressed bytes) back into bytes only when the request's first `Accept` type is
 * among them, and clients send any (`*` + `/*`, `application/json`, `text/html`...): so every type.
 * The other side of it: every request body reaches the functions base64-encoded (a third larger
 * against Lambda's 6 MB invocation limit), and every body reader decodes it.
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['*/*'];

/** Whether API Gateway treats a media type as binary (`BINARY_MEDIA_TYPES`: exact, `type/*` or `*` + `/*`). */
export function isBinaryMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return BINARY_MEDIA_TYPES.some(
    (pattern) => pattern === '*/*' || pattern === type || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1))),
  );
}

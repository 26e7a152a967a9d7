/**
 * API Gateway's payload compression, as the REST API is configured (infra/constructs/service-api.ts)
 * and as the local gateway emulates it (tools/local/gateway.ts). API Gateway, not the functions,
 * compresses an answer: the functions always answer text, and Lambda's limits count that text.
 *
 * The smallest body API Gateway compresses, in bytes (`minimumCompressionSize`). Under 1 KiB a body
 * is an error, a single small resource or an empty list: gzip saves a few hundred bytes at best,
 * less than a packet, and costs a round of compression on both sides. From 1 KiB on (an issue
 * with a description, every list page, the OpenAPI document) JSON shrinks to a fifth or less.
 */
export const MINIMUM_COMPRESSION_SIZE = 1024;

/** The content codings API Gateway compresses with; `identity` is the body as it is. */
export const gatewayCodings = ['gzip', 'deflate', 'identity'] as const;
export type GatewayCoding = (typeof gatewayCodings)[number];

/**
 * The coding API Gateway answers with for a request's `Accept-Encoding`: the client's first choice,
 * the coding of highest weight (`q`, 1 when left out; the first named on a tie), which must be one
 * it supports (gzip, deflate, identity), or nothing is compressed. A coding at `q=0` is refused and
 * never chosen. No header, or a first choice of `*`, `br` or any other, is identity: API Gateway
 * compresses only for a supported coding the client names.
 */
export function gatewayCoding(acceptEncoding: string | undefined): GatewayCoding {
  let best: { name: string; weight: number } | undefined;
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (name === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!(weight > 0)) continue;
    if (best === undefined || weight > best.weight) best = { name, weight };
  }
  return (gatewayCodings as readonly string[]).includes(best?.name ?? '') ? (best!.name as GatewayCoding) : 'identity';
}

/**
 * Whether API Gateway compresses an answer: the client's first choice is gzip or deflate, the body
 * is at least `MINIMUM_COMPRESSION_SIZE` bytes, and the function did not set `Content-Encoding`
 * (API Gateway then takes the body as compressed already).
 */
export function compressesAnswer(
  acceptEncoding: string | undefined,
  bodyBytes: number,
  headers: Record<string, unknown>,
): Exclude<GatewayCoding, 'identity'> | undefined {
  const coding = gatewayCoding(acceptEncoding);
  if (coding === 'identity' || bodyBytes < MINIMUM_COMPRESSION_SIZE) return undefined;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding')) return undefined;
  return coding;
}

/**
 * What S3 checks of a request before it touches an object, for the local S3 server
 * (tools/local/s3.ts): its Signature V4 (in the query of a pre-signed URL, or in the
 * `Authorization` header of a request the service signs itself), its expiry, the bucket's name and
 * the object's key. Each refusal is S3's own (status, code, message); the signature is computed
 * again with the local account's key as S3 computes it (canonical request, scope, signing key).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createScope, getCanonicalHeaders, getCanonicalQuery, getSigningKey } from '@smithy/signature-v4';
import { Sha256 } from '../../lib/aws/sha256.ts';

export interface S3Refusal {
  status: number;
  code: string;
  message: string;
}

export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const refusal = (status: number, code: string, message: string): S3Refusal => ({ status, code, message });

/** S3's XML error document for a refusal. */
export function errorXml(r: S3Refusal): string {
  const escape = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${r.code}</Code><Message>${escape(r.message)}</Message></Error>`;
}

/** A request as it reached the server: its raw path (percent-encoded as sent), query and headers. */
export interface SignedRequest {
  method: string;
  rawPath: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** `20261126T101500Z` as a time, or undefined when it is not one. */
export function parseAmzDate(value: string | undefined): number | undefined {
  const m = AMZ_DATE.exec(value ?? '');
  if (!m) return undefined;
  const time = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(time) ? undefined : time;
}

/** `AKID/20261126/us-east-1/s3/aws4_request`, checked against the local account. */
export function parseCredential(
  value: string | undefined,
  amzDate: string,
  credentials: LocalCredentials,
): { day: string; region: string } | S3Refusal {
  const parts = (value ?? '').split('/');
  if (parts.length !== 5 || parts[3] !== 's3' || parts[4] !== 'aws4_request')
    return refusal(400, 'AuthorizationQueryParametersError', 'Error parsing the X-Amz-Credential parameter.');
  const [accessKeyId, day, region] = parts as [string, string, string];
  if (accessKeyId !== credentials.accessKeyId)
    return refusal(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (day !== amzDate.slice(0, 8))
    return refusal(403, 'SignatureDoesNotMatch', 'The credential date does not match the date of the request.');
  return { day, region };
}

/** The hex signature of `stringToSign` under the signing key of a day and region. */
export async function signWith(credentials: LocalCredentials, day: string, region: string, stringToSign: string) {
  const key = await getSigningKey(Sha256, { ...credentials }, day, region, 's3');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

/** Compares two hex signatures in constant time. */
export function sameSignature(a: string, b: string | undefined): boolean {
  return b !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

/** The signature S3 expects of a request, from its canonical request (the signed headers only). */
async function expectedSignature(
  req: SignedRequest,
  signed: { headers: string[]; payloadHash: string; amzDate: string; day: string; region: string },
  query: URLSearchParams,
  credentials: LocalCredentials,
): Promise<string> {
  const headers: Record<string, string> = {};
  for (const name of signed.headers) headers[name] = headerValue(req.headers[name]) ?? '';
  const canonicalHeaders = getCanonicalHeaders({ headers } as never, undefined, new Set(signed.headers));
  const queryObject: Record<string, string[]> = {};
  for (const [k, v] of query) (queryObject[k] ??= []).push(v);
  const canonical = [
    req.method,
    req.rawPath,
    getCanonicalQuery({ query: queryObject } as never),
    ...signed.headers.map((name) => `${name}:${canonicalHeaders[name] ?? ''}`),
    '',
    signed.headers.join(';'),
    signed.payloadHash,
  ].join('\n');
  const scope = createScope(signed.day, signed.region, 's3');
  const stringToSign = ['AWS4-HMAC-SHA256', signed.amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join(
    '\n',
  );
  return signWith(credentials, signed.day, signed.region, stringToSign);
}

/** A list of signed header names as S3 takes it: lower case, sorted, `host` among them. */
function signedHeaderNames(value: string | undefined): string[] | undefined {
  const names = (value ?? '').split(';');
  const valid = names.every((n) => /^[a-z0-9-]+$/.test(n)) && names.includes('host');
  return valid ? names : undefined;
}

/**
 * A pre-signed URL (Signature V4 in the query): the local account's, not expired (X-Amz-Date plus
 * X-Amz-Expires, at most 7 days), and its signature that of this method, path and query.
 */
export async function checkQuerySignature(req: SignedRequest, credentials: LocalCredentials, now: number) {
  const q = req.query;
  const malformed = (what: string) => refusal(400, 'AuthorizationQueryParametersError', what);
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return malformed('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const amzDate = q.get('X-Amz-Date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined) return malformed("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  const expires = Number(q.get('X-Amz-Expires'));
  if (!/^\d+$/.test(q.get('X-Amz-Expires') ?? '') || expires < 1 || expires > 604_800)
    return malformed('X-Amz-Expires must be a whole number of seconds from 1 to 604800');
  const credential = parseCredential(q.get('X-Amz-Credential') ?? undefined, amzDate, credentials);
  if ('status' in credential) return credential;
  const headers = signedHeaderNames(q.get('X-Amz-SignedHeaders') ?? undefined);
  if (!headers) return malformed('X-Amz-SignedHeaders must name the host header');
  if (now > signedAt + expires * 1000) return refusal(403, 'AccessDenied', 'Request has expired');
  if (signedAt > now + 15 * 60_000) return refusal(403, 'AccessDenied', 'Request is not valid yet');
  const payloadHash = q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const expected = await expectedSignature(req, { headers, payloadHash, amzDate, ...credential }, q, credentials);
  if (!sameSignature(expected, q.get('X-Amz-Signature') ?? undefined))
    return refusal(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  return undefined;
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

/**
 * A request signed in its `Authorization` header (the service's own HeadObject, GetObject,
 * PutObject, CopyObject, DeleteObject): the local account's, within 15 minutes of now, every
 * `x-amz-*` header signed (so a copy's source cannot be swapped), and its signature that of this
 * method, path, query and signed headers. Gives the declared payload hash, checked by the caller.
 */
export async function checkHeaderSignature(req: SignedRequest, credentials: LocalCredentials, now: number) {
  const m = AUTHORIZATION.exec(headerValue(req.headers.authorization) ?? '');
  if (!m) return refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  const amzDate = headerValue(req.headers['x-amz-date']) ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined)
    return refusal(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  const credential = parseCredential(m[1], amzDate, credentials);
  if ('status' in credential) return credential;
  const headers = signedHeaderNames(m[2]);
  if (!headers) return refusal(400, 'AuthorizationHeaderMalformed', 'SignedHeaders must name the host header.');
  const unsigned = Object.keys(req.headers).filter((name) => name.startsWith('x-amz-') && !headers.includes(name));
  if (unsigned.length > 0)
    return refusal(
      403,
      'AccessDenied',
      `There were headers present in the request which were not signed: ${unsigned.join(', ')}`,
    );
  if (Math.abs(now - signedAt) > 15 * 60_000)
    return refusal(403, 'RequestTimeTooSkewed', "The difference between the request time and the server's time is too large.");
  const payloadHash = headerValue(req.headers['x-amz-content-sha256']);
  if (!payloadHash || !/^([0-9a-f]{64}|UNSIGNED-PAYLOAD|STREAMING-[A-Z0-9-]+)$/.test(payloadHash))
    return refusal(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const expected = await expectedSignature(req, { headers, payloadHash, amzDate, ...credential }, req.query, credentials);
  if (!sameSignature(expected, m[3]))
    return refusal(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  return { payloadHash };
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** A bucket name S3 accepts (and never one that names a folder above the data: `..`). */
export function checkBucketName(name: string): S3Refusal | undefined {
  return BUCKET_NAME.test(name) && !name.includes('..')
    ? undefined
    : refusal(400, 'InvalidBucketName', 'The specified bucket is not valid.');
}

/**
 * An object key the local server may store: at most 1024 bytes, no NUL, no leading `/`, and no
 * `.` or `..` segment (S3 keeps such keys as text; the local server's files would land outside its
 * folder, so it refuses them, 400).
 */
export function checkObjectKey(key: string): S3Refusal | undefined {
  if (Buffer.byteLength(key) > 1024) return refusal(400, 'KeyTooLongError', 'Your key is too long');
  const bad = key === '' || key.startsWith('/') || key.includes('\0') || key.split(/[/\\]/).some((s) => s === '.' || s === '..');
  return bad ? refusal(400, 'InvalidArgument', 'Object keys with a leading "/", a "." or ".." segment are refused.') : undefined;
}

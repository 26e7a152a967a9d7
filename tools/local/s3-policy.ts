/**
 * A browser form upload (S3's POST Object) checked as S3 checks it, for the local S3 server
 * (tools/local/s3.ts): the policy's Signature V4 (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date,
 * X-Amz-Signature over the base64 policy), its `expiration`, and every condition of its
 * `conditions` (exact values, `eq`, `starts-with`, `content-length-range`, the bucket), with no form
 * field that no condition names; then the key, and the file's SHA-256 when the form declares one.
 * Nothing here knows the service's keys: any policy is checked from its own conditions.
 */
import { createHash } from 'node:crypto';
import {
  checkObjectKey,
  type LocalCredentials,
  parseAmzDate,
  parseCredential,
  refusal,
  type S3Refusal,
  sameSignature,
  signWith,
} from './s3-auth.ts';

export interface PostedForm {
  /** The bucket named by the URL. */
  bucket: string;
  /** The form's fields, names as sent (S3 reads them without regard to case). */
  fields: [string, string][];
  /** The file as posted: its name and type (from its part) and bytes. */
  file: { name: string; type: string; bytes: Buffer } | undefined;
}

/** Fields no condition needs to name (S3's rule). */
const EXEMPT = new Set(['policy', 'x-amz-signature', 'file']);

type Condition = { op: 'eq' | 'starts-with'; field: string; value: string } | { op: 'range'; min: number; max: number };

const policyError = (message: string) => refusal(400, 'InvalidPolicyDocument', `Invalid Policy: ${message}`);
const denied = (message: string) => refusal(403, 'AccessDenied', `Invalid according to Policy: ${message}`);

/** One condition of the policy, or undefined when it is not one S3 knows. */
function parseCondition(raw: unknown): Condition | undefined {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const entries = Object.entries(raw);
    const [field, value] = entries[0] ?? [];
    return entries.length === 1 && typeof value === 'string' ? { op: 'eq', field: field!.toLowerCase(), value } : undefined;
  }
  if (!Array.isArray(raw) || raw.length !== 3) return undefined;
  const [op, a, b] = raw as unknown[];
  if (op === 'content-length-range') {
    const [min, max] = [Number(a), Number(b)];
    return Number.isInteger(min) && Number.isInteger(max) && min >= 0 ? { op: 'range', min, max } : undefined;
  }
  if ((op === 'eq' || op === 'starts-with') && typeof a === 'string' && a.startsWith('$') && typeof b === 'string')
    return { op, field: a.slice(1).toLowerCase(), value: b };
  return undefined;
}

/** The policy document: its expiry and conditions, or S3's refusal of it. */
function readPolicy(encoded: string, now: number): Condition[] | S3Refusal {
  let doc: { expiration?: unknown; conditions?: unknown };
  try {
    doc = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as typeof doc;
  } catch {
    return policyError('Invalid JSON.');
  }
  const expiration = typeof doc?.expiration === 'string' ? Date.parse(doc.expiration) : NaN;
  if (Number.isNaN(expiration)) return policyError("Invalid 'expiration' value.");
  if (!Array.isArray(doc.conditions)) return policyError("Policy missing 'conditions'.");
  const conditions = doc.conditions.map(parseCondition);
  if (conditions.some((c) => c === undefined)) return policyError('Invalid Condition.');
  if (expiration < now) return denied('Policy expired.');
  return conditions as Condition[];
}

/** Checks one condition against the form's fields (names in lower case; `bucket` is the URL's). */
function failedCondition(c: Condition, fields: Map<string, string>, size: number): S3Refusal | undefined {
  if (c.op === 'range') {
    if (size < c.min) return refusal(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
    if (size > c.max) return refusal(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    return undefined;
  }
  const value = fields.get(c.field) ?? '';
  // A Content-Type may list several types: each must start with the prefix.
  const values = c.field === 'content-type' && c.op === 'starts-with' ? value.split(',').map((v) => v.trim()) : [value];
  const holds = c.op === 'eq' ? value === c.value : fields.has(c.field) && values.every((v) => v.startsWith(c.value));
  return holds ? undefined : denied(`Policy Condition failed: ["${c.op}", "$${c.field}", ${JSON.stringify(c.value)}]`);
}

/** The policy's signature, by the local account, over the base64 policy as sent. */
async function checkPolicySignature(fields: Map<string, string>, credentials: LocalCredentials): Promise<S3Refusal | undefined> {
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256')
    return refusal(400, 'InvalidArgument', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const amzDate = fields.get('x-amz-date') ?? '';
  if (parseAmzDate(amzDate) === undefined)
    return refusal(400, 'InvalidArgument', 'X-Amz-Date must be in the ISO8601 Long Format');
  const credential = parseCredential(fields.get('x-amz-credential'), amzDate, credentials);
  if ('status' in credential) return credential;
  const expected = await signWith(credentials, credential.day, credential.region, fields.get('policy') ?? '');
  return sameSignature(expected, fields.get('x-amz-signature'))
    ? undefined
    : refusal(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
}

/** The form's fields by lower-case name, with `${filename}` in the key replaced as S3 does. */
function fieldMap(form: PostedForm): Map<string, string> {
  const fields = new Map(form.fields.map(([name, value]) => [name.toLowerCase(), value] as const));
  const key = fields.get('key');
  if (key !== undefined && form.file) fields.set('key', key.replaceAll('${filename}', form.file.name));
  return fields;
}

/**
 * S3's answer to a form upload, before anything is stored: undefined when it would take it, else
 * its refusal (400 for a missing key or file, a bad key, a size out of range, a checksum that does
 * not match; 403 for a missing, forged or expired policy, a condition that fails, or a field that no
 * condition names).
 */
export async function checkPostForm(
  form: PostedForm,
  credentials: LocalCredentials,
  now: number,
): Promise<S3Refusal | undefined> {
  const fields = fieldMap(form);
  if (!form.file) return refusal(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
  const key = fields.get('key');
  if (key === undefined) return refusal(400, 'InvalidArgument', "Bucket POST must contain a field named 'key'.");
  if (!fields.has('policy')) return refusal(403, 'AccessDenied', 'Access Denied');
  const unsigned = await checkPolicySignature(fields, credentials);
  if (unsigned) return unsigned;
  const conditions = readPolicy(fields.get('policy')!, now);
  if ('status' in conditions) return conditions;
  const withBucket = new Map([...fields, ['bucket', form.bucket]]);
  for (const condition of conditions) {
    const failed = failedCondition(condition, withBucket, form.file.bytes.length);
    if (failed) return failed;
  }
  const named = new Set(conditions.flatMap((c) => (c.op === 'range' ? [] : [c.field])));
  const extra = [...fields.keys()].filter((name) => !EXEMPT.has(name) && !name.startsWith('x-ignore-') && !named.has(name));
  if (extra.length > 0) return denied(`Extra input fields: ${extra.join(', ')}`);
  return checkObjectKey(key) ?? checkChecksum(fields, form.file.bytes);
}

/** The file's SHA-256 against the form's `x-amz-checksum-sha256`, when it has one (S3 stores nothing that differs). */
function checkChecksum(fields: Map<string, string>, bytes: Buffer): S3Refusal | undefined {
  const declared = fields.get('x-amz-checksum-sha256');
  if (declared === undefined) return undefined;
  const actual = createHash('sha256').update(bytes).digest('base64');
  return actual === declared
    ? undefined
    : refusal(400, 'BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
}

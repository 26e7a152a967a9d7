/**
 * The attachments' bucket (docs/attachments.md): pre-signed upload forms and download URLs, and
 * the few object calls the service makes itself (HeadObject on `complete`, a small GetObject for an
 * MCP client, DeleteObject in the cascade; the admin CLI's export and import of files stream a
 * GetObject to disk and a PutObject from it, one file at a time). Requests are signed with Signature V4 by the SDK's own
 * signer, and the POST policy with the same signing key, so the bundles carry no S3 client. The
 * signer's credentials are the execution role's on Lambda (from the environment), the local
 * server's account locally. Every object key starts with its organisation (`attachmentObjectKey`).
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { ConfigurationError, config } from '../config.ts';
import { Sha256 } from './sha256.ts';

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The bucket as configured: its name, where it is reached, and who signs for it. */
function bucket() {
  const { bucket: name, s3Endpoint, region, localCredentials } = config().attachments;
  if (!name) throw new ConfigurationError("ATTACHMENTS_BUCKET must be set in the function's environment");
  const credentials: () => Promise<Credentials> = s3Endpoint ? async () => localCredentials : fromEnv();
  // Path-style on a local server (one host for every bucket), virtual-hosted on AWS.
  const base = s3Endpoint ? `${s3Endpoint.replace(/\/+$/, '')}/${name}` : `https://${name}.s3.${region}.amazonaws.com`;
  // Where a form is posted: the bucket's path on a local server, the bucket's host on AWS.
  return { name, region, credentials, base, formUrl: s3Endpoint ? base : `${base}/` };
}

const PATH_SAFE = /^[A-Za-z0-9/_.-]+$/;

/** The URL of an object (keys are made of URL-safe characters only: `attachmentObjectKey`). */
function objectUrl(base: string, key: string): URL {
  if (!PATH_SAFE.test(key)) throw new Error(`object key with unsafe characters: ${key}`);
  return new URL(`${base}/${key}`);
}

const pad = (n: number) => String(n).padStart(10, '0');

/** Where an attachment's file lives: under its organisation, project and issue. */
export const attachmentObjectKey = (orgId: number, projectId: number, issueId: number, attachmentId: number) =>
  `o/${pad(orgId)}/p/${pad(projectId)}/i/${pad(issueId)}/a/${pad(attachmentId)}`;

/**
 * Where an upload form posts a declared file (`STAGING_PREFIX`): its own key per declaration
 * (`nonce`, random), which `complete` copies to the attachment's key once the file checks out.
 * Nothing else refers to it: a form posted late lands where nothing counts it, and the bucket's
 * lifecycle rule removes it.
 */
export const STAGING_PREFIX = 'staging/';
/** Where the forms of one organisation post (`stagingObjectKey`). */
export const stagingPrefixOf = (orgId: number) => `${STAGING_PREFIX}o/${pad(orgId)}/`;
export const stagingObjectKey = (orgId: number, attachmentId: number, nonce: string) =>
  `${stagingPrefixOf(orgId)}a/${pad(attachmentId)}/${nonce}`;

/** `20261126T101500Z` and `20261126`. */
function amzDates(now: Date) {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return { amzDate, day: amzDate.slice(0, 8) };
}

/** The Signature V4 signing key of a day, region and service (s3). */
function signingKey(secret: string, day: string, region: string): Buffer {
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 's3'), 'aws4_request');
}

export interface UploadForm {
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
}

/**
 * A pre-signed POST (browser-form upload) of exactly one object: its key, content type, size
 * (`content-length-range` from `size` to `size`) and, when given, its SHA-256 (base64) are
 * conditions of the signed policy, which expires after `seconds`. S3 refuses a form whose file or
 * fields break a condition; the client sends `fields` as they are, then the file as `file`. The
 * policy and fields are those `@aws-sdk/s3-presigned-post` makes of the same input, field for field
 * (test/unit/object-signing.test.ts), without its S3 client in the bundle.
 */
export async function signUploadForm(input: {
  key: string;
  contentType: string;
  size: number;
  sha256Base64: string | null;
  seconds: number;
  now?: Date;
}): Promise<UploadForm> {
  const b = bucket();
  const now = input.now ?? new Date();
  const creds = await b.credentials();
  const { amzDate, day } = amzDates(now);
  const expiresAt = new Date(now.getTime() + input.seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const fields: Record<string, string> = {
    'Content-Type': input.contentType,
    ...(input.sha256Base64 ? { 'x-amz-checksum-algorithm': 'SHA256', 'x-amz-checksum-sha256': input.sha256Base64 } : {}),
    bucket: b.name,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${creds.accessKeyId}/${day}/${b.region}/s3/aws4_request`,
    'X-Amz-Date': amzDate,
    ...(creds.sessionToken ? { 'X-Amz-Security-Token': creds.sessionToken } : {}),
  };
  const policy = {
    expiration: expiresAt,
    conditions: [
      ['content-length-range', input.size, input.size],
      ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
      { key: input.key },
    ],
  };
  const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
  const signature = createHmac('sha256', signingKey(creds.secretAccessKey, day, b.region))
    .update(encoded)
    .digest('hex');
  return {
    url: b.formUrl,
    fields: { ...fields, key: input.key, Policy: encoded, 'X-Amz-Signature': signature },
    expiresAt: new Date(now.getTime() + input.seconds * 1000).toISOString(),
  };
}

/**
 * Posts a file with its upload form (`signUploadForm`), as a browser would: S3 checks the form's
 * conditions (size, type, checksum) itself. The service posts only a small file it was given
 * whole (an MCP client's inline file); any other file goes from the client straight to S3.
 */
export async function postUploadForm(
  form: Pick<UploadForm, 'url' | 'fields'>,
  file: { name: string; contentType: string; bytes: Uint8Array },
): Promise<void> {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
  body.append('file', new Blob([file.bytes], { type: file.contentType }), file.name);
  const res = await fetch(form.url, { method: 'POST', body });
  if (!res.ok) throw new Error(`PostObject: ${res.status} ${(await res.text()).slice(0, 200)}`);
}

function signer() {
  const b = bucket();
  return {
    b,
    v4: new SignatureV4({ service: 's3', region: b.region, credentials: b.credentials, sha256: Sha256, uriEscapePath: false }),
  };
}

/** An HTTP request to the object at `url`, as the signer takes it. */
function requestOf(method: string, url: URL, headers: Record<string, string> = {}, query: Record<string, string> = {}) {
  return {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { host: url.host, ...headers },
  };
}

/**
 * A pre-signed GET of an object, valid for `seconds`. `disposition` is the `Content-Disposition`
 * S3 answers with (`attachment` for what a browser would run: docs/attachments.md).
 */
export async function signDownloadUrl(
  key: string,
  options: { seconds: number; disposition: string; now?: Date },
): Promise<{ url: string; expiresAt: string }> {
  const { b, v4 } = signer();
  const now = options.now ?? new Date();
  const url = objectUrl(b.base, key);
  const signed = await v4.presign(
    requestOf(
      'GET',
      url,
      { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      { 'response-content-disposition': options.disposition },
    ),
    { expiresIn: options.seconds, signingDate: now },
  );
  const query = new URLSearchParams(signed.query as Record<string, string>);
  return {
    url: `${url.origin}${url.pathname}?${query.toString().replace(/\+/g, '%20')}`,
    expiresAt: new Date(now.getTime() + options.seconds * 1000).toISOString(),
  };
}

/** A signed request to an object, sent. */
async function send(
  method: 'HEAD' | 'GET' | 'DELETE' | 'PUT',
  key: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const { b, v4 } = signer();
  const url = objectUrl(b.base, key);
  const signed = await v4.sign(requestOf(method, url, { 'x-amz-content-sha256': EMPTY_SHA256, ...headers }));
  return fetch(url, { method, headers: signed.headers });
}

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface StoredObject {
  size: number;
  contentType: string;
  /** The SHA-256 S3 checked on upload (base64), when the upload carried one and the store keeps it. */
  sha256Base64: string | undefined;
  /** Its ETag: what a copy of exactly this object is made on (`copyObject`). */
  etag: string;
}

/** What S3 holds at `key` (HeadObject, with its checksum), or undefined when there is nothing. */
export async function headObject(key: string): Promise<StoredObject | undefined> {
  const res = await send('HEAD', key, { 'x-amz-checksum-mode': 'ENABLED' });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`HeadObject ${key}: ${res.status}`);
  return {
    size: Number(res.headers.get('content-length')),
    contentType: res.headers.get('content-type') ?? '',
    sha256Base64: res.headers.get('x-amz-checksum-sha256') ?? undefined,
    etag: res.headers.get('etag') ?? '',
  };
}

/** The bytes of an object (GetObject), or undefined when there is none. */
export async function readObject(key: string): Promise<Buffer | undefined> {
  const res = await send('GET', key);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GetObject ${key}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * The body of an object as a stream (GetObject), or undefined when there is none: the caller reads
 * it to its end (the export writes it to a file without holding it in memory).
 */
export async function readObjectStream(key: string): Promise<ReadableStream<Uint8Array> | undefined> {
  const res = await send('GET', key);
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`GetObject ${key}: ${res.status}`);
  }
  return res.body ?? new ReadableStream({ start: (c) => c.close() });
}

/**
 * Puts an object (PutObject) from a stream of exactly `size` bytes, without holding it in memory:
 * its content type, and its SHA-256 (base64) for S3 to check (AWS refuses bytes that do not match
 * it; the local server stores what it is sent, so the caller checks the object afterwards, as
 * `complete` does). The payload is sent unsigned (`UNSIGNED-PAYLOAD`), the headers signed.
 */
export async function putObject(
  key: string,
  body: Readable,
  object: { size: number; contentType: string; sha256Base64: string },
): Promise<void> {
  const { b, v4 } = signer();
  const url = objectUrl(b.base, key);
  const signed = await v4.sign(
    requestOf('PUT', url, {
      'content-type': object.contentType,
      'content-length': String(object.size),
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-checksum-sha256': object.sha256Base64,
    }),
  );
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const status = await new Promise<number>((resolve, reject) => {
    const req = send(url, { method: 'PUT', headers: signed.headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    pipeline(body, req).catch(reject);
  });
  if (status < 200 || status >= 300) throw new Error(`PutObject ${key}: ${status}`);
}

/**
 * Deletes objects (DeleteObject each, a few at a time); one already gone is no error. A 5xx is tried
 * again, twice, as the SDK's retry does (the local server answers 500 when two deletes empty the same
 * folder at once).
 */
export async function deleteObjects(objectKeys: readonly string[]): Promise<void> {
  const queue = [...new Set(objectKeys)];
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      let res = await send('DELETE', key);
      for (let retry = 1; res.status >= 500 && retry <= 2; retry++) {
        await new Promise((r) => setTimeout(r, 50 * retry));
        res = await send('DELETE', key);
      }
      if (!res.ok && res.status !== 404) throw new Error(`DeleteObject ${key}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
}

/**
 * Copies the object at `from` to `to` (CopyObject), only while it is still the one whose ETag is
 * `etag` (the object just checked: S3 refuses the copy otherwise, 412), keeping its type and
 * asking S3 for a SHA-256 of the copy. Returns whether the copy is of that object: a server that
 * ignores the condition (the local one) is caught by the copy's own ETag.
 */
export async function copyObject(from: string, to: string, etag: string): Promise<boolean> {
  const { b } = signer();
  if (!PATH_SAFE.test(from)) throw new Error(`object key with unsafe characters: ${from}`);
  const res = await send('PUT', to, {
    'x-amz-copy-source': `/${b.name}/${from}`,
    'x-amz-copy-source-if-match': etag,
    'x-amz-checksum-algorithm': 'SHA256',
  });
  const body = await res.text();
  if (res.status === 412) return false;
  if (!res.ok || body.includes('<Error>')) throw new Error(`CopyObject ${from} to ${to}: ${res.status} ${body.slice(0, 200)}`);
  return /<ETag>(.*?)<\/ETag>/.exec(body)?.[1]?.replace(/&quot;/g, '"') === etag;
}

/** The keys under `prefix` and when each was last written (ListObjectsV2, every page): the local expiry of staged files. */
export async function listObjects(prefix: string): Promise<{ key: string; lastModified: Date }[]> {
  const { b, v4 } = signer();
  const found: { key: string; lastModified: Date }[] = [];
  let token: string | undefined;
  do {
    const url = new URL(`${b.base}/`);
    const query: Record<string, string> = { 'list-type': '2', prefix, ...(token ? { 'continuation-token': token } : {}) };
    const signed = await v4.sign(requestOf('GET', url, { 'x-amz-content-sha256': EMPTY_SHA256 }, query));
    const res = await fetch(`${url.href}?${new URLSearchParams(query).toString()}`, { headers: signed.headers });
    const body = await res.text();
    if (!res.ok) throw new Error(`ListObjectsV2 ${prefix}: ${res.status}`);
    for (const [, content] of body.matchAll(/<Contents>(.*?)<\/Contents>/gs)) {
      const key = /<Key>(.*?)<\/Key>/.exec(content!)?.[1];
      const modified = /<LastModified>(.*?)<\/LastModified>/.exec(content!)?.[1];
      if (key && modified) found.push({ key, lastModified: new Date(modified) });
    }
    token = /<NextContinuationToken>(.*?)<\/NextContinuationToken>/.exec(body)?.[1];
  } while (token);
  return found;
}

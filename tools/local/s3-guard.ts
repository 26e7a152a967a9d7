/**
 * The local S3 server's front door (tools/local/s3.ts): an HTTP server on 127.0.0.1 that checks
 * each request as S3 would and only then hands it to s3rver on another loopback port, which checks
 * none of it. A pre-signed URL and a header-signed request must carry a valid Signature V4 of the
 * local account (tools/local/s3-auth.ts), a form upload a valid, unexpired policy whose every
 * condition holds (tools/local/s3-policy.ts); the bucket's name and the object's key (and a copy's
 * source) are checked too. Only a CORS preflight goes through unsigned, as on S3.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  checkBucketName,
  checkHeaderSignature,
  checkObjectKey,
  checkQuerySignature,
  errorXml,
  type LocalCredentials,
  refusal,
  type S3Refusal,
  type SignedRequest,
} from './s3-auth.ts';
import { checkPostForm, type PostedForm } from './s3-policy.ts';

/** The most a request body is held in memory for a check (a form upload, a signed payload hash). */
const MAX_BUFFERED_BYTES = 256 * 1024 * 1024;

interface Target extends SignedRequest {
  bucket: string | undefined;
  key: string | undefined;
}

/** What is forwarded: the request's own body (streamed), or one read whole (and maybe rebuilt). */
type Forward = { body: 'stream' } | { body: Buffer; headers?: Record<string, string> };

function answer(res: ServerResponse, r: S3Refusal) {
  const body = errorXml(r);
  res.writeHead(r.status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The request's path-style target: `/bucket/key?query`, the key percent-decoded. */
function parseTarget(req: IncomingMessage): Target | S3Refusal {
  const raw = req.url ?? '';
  if (!raw.startsWith('/')) return refusal(400, 'InvalidURI', "Couldn't parse the specified URI.");
  const at = raw.indexOf('?');
  const rawPath = at < 0 ? raw : raw.slice(0, at);
  const slash = rawPath.indexOf('/', 1);
  let bucket: string | undefined;
  let key: string | undefined;
  try {
    bucket = decodeURIComponent(slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash)) || undefined;
    key = slash < 0 ? undefined : decodeURIComponent(rawPath.slice(slash + 1));
  } catch {
    return refusal(400, 'InvalidURI', "Couldn't parse the specified URI.");
  }
  const query = new URLSearchParams(at < 0 ? '' : raw.slice(at + 1));
  return { method: req.method ?? 'GET', rawPath, query, headers: req.headers, bucket, key };
}

/** The bucket's name, the key, and a copy's source (`x-amz-copy-source`) as S3 accepts them. */
function checkNames(target: Target): S3Refusal | undefined {
  if (target.bucket !== undefined) {
    const bad = checkBucketName(target.bucket);
    if (bad) return bad;
  }
  if (target.key) {
    const bad = checkObjectKey(target.key);
    if (bad) return bad;
  }
  const source = target.headers['x-amz-copy-source'];
  if (source === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(String(source).split('?')[0]!).replace(/^\//, '');
  } catch {
    return refusal(400, 'InvalidArgument', 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey');
  }
  const slash = decoded.indexOf('/');
  if (slash < 1)
    return refusal(400, 'InvalidArgument', 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey');
  return checkBucketName(decoded.slice(0, slash)) ?? checkObjectKey(decoded.slice(slash + 1));
}

/** The request's body, read whole; undefined when it is over what may be held. */
async function readWhole(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BUFFERED_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The form's fields up to its file (S3 ignores what follows), and the file. */
async function readForm(bucket: string, body: Buffer, contentType: string): Promise<PostedForm | S3Refusal> {
  let entries: [string, string | File][];
  try {
    entries = [...(await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData())];
  } catch {
    return refusal(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
  }
  const at = entries.findIndex(([name]) => name === 'file');
  const fields = entries.slice(0, at < 0 ? entries.length : at).filter((e): e is [string, string] => typeof e[1] === 'string');
  const value = at < 0 ? undefined : entries[at]![1];
  const file =
    value === undefined
      ? undefined
      : typeof value === 'string'
        ? { name: '', type: '', bytes: Buffer.from(value) }
        : { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  return { bucket, fields, file };
}

/**
 * A form upload, checked; then the form as checked is what s3rver receives (its fields by their
 * lower-case names, last value of each, `${filename}` replaced in the key, nothing after the file),
 * so that it stores exactly what the policy allowed.
 */
async function checkFormUpload(
  req: IncomingMessage,
  target: Target,
  credentials: LocalCredentials,
): Promise<Forward | S3Refusal> {
  const body = await readWhole(req);
  if (!body) return refusal(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
  const form = await readForm(target.bucket!, body, String(req.headers['content-type']));
  if ('status' in form) return form;
  const refused = await checkPostForm(form, credentials, Date.now());
  if (refused) return refused;
  const fields = new Map(form.fields.map(([name, value]) => [name.toLowerCase(), value] as const));
  fields.set('key', (fields.get('key') ?? '').replaceAll('${filename}', form.file!.name));
  const rebuilt = new FormData();
  for (const [name, value] of fields) rebuilt.append(name, value);
  rebuilt.append('file', new Blob([new Uint8Array(form.file!.bytes)], { type: form.file!.type }), form.file!.name || 'file');
  const encoded = new Request('http://local/', { method: 'POST', body: rebuilt });
  return {
    body: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  };
}

/** A header-signed request, checked; a body whose SHA-256 it declares is read and compared. */
async function checkSignedHeaders(
  req: IncomingMessage,
  target: Target,
  credentials: LocalCredentials,
): Promise<Forward | S3Refusal> {
  const signed = await checkHeaderSignature(target, credentials, Date.now());
  if ('status' in signed) return signed;
  if (!/^[0-9a-f]{64}$/.test(signed.payloadHash)) return { body: 'stream' };
  const body = await readWhole(req);
  if (!body) return refusal(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
  if (createHash('sha256').update(body).digest('hex') !== signed.payloadHash)
    return refusal(
      400,
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  return { body };
}

/** What S3 decides of a request before it reaches an object: go on (and with which body), or its refusal. */
async function admit(req: IncomingMessage, target: Target, credentials: LocalCredentials): Promise<Forward | S3Refusal> {
  // A CORS preflight carries no credentials on S3 either; s3rver answers it from the bucket's rules.
  if (target.method === 'OPTIONS') return { body: 'stream' };
  const badName = checkNames(target);
  if (badName) return badName;
  const byQuery = target.query.has('X-Amz-Algorithm') || target.query.has('X-Amz-Signature');
  const byHeader = req.headers.authorization !== undefined;
  if (byQuery && byHeader) return refusal(400, 'InvalidArgument', 'Only one auth mechanism allowed');
  if (byQuery) return (await checkQuerySignature(target, credentials, Date.now())) ?? { body: 'stream' };
  if (byHeader) return checkSignedHeaders(req, target, credentials);
  const form = /^multipart\/form-data/i.test(String(req.headers['content-type'] ?? ''));
  if (target.method === 'POST' && target.bucket && !target.key && form) return checkFormUpload(req, target, credentials);
  return refusal(403, 'AccessDenied', 'Access Denied');
}

/** Hands an admitted request to s3rver and its answer back. */
function forward(req: IncomingMessage, res: ServerResponse, upstreamPort: number, admitted: Forward): Promise<void> {
  const headers = { ...req.headers };
  if (admitted.body !== 'stream') {
    Object.assign(headers, admitted.headers, { 'content-length': String(admitted.body.length) });
    delete headers['transfer-encoding'];
  }
  return new Promise((resolve, reject) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        pipeline(answer, res).then(resolve, reject);
      },
    );
    upstream.once('error', reject);
    if (admitted.body === 'stream') pipeline(req, upstream).catch(reject);
    else upstream.end(admitted.body);
  });
}

/**
 * The verifying server in front of s3rver (on `upstreamPort`). A request it cannot parse, and any
 * error of its own, is answered in S3's XML (500 `InternalError` at worst), never thrown.
 */
export function createS3Guard(options: { upstreamPort: number; credentials: LocalCredentials }): http.Server {
  // A request without `Host` is answered as any other (Node would answer it 400 with no body).
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    void (async () => {
      const target = parseTarget(req);
      const admitted = 'status' in target ? target : await admit(req, target, options.credentials);
      if ('status' in admitted) {
        req.resume();
        answer(res, admitted);
        return;
      }
      await forward(req, res, options.upstreamPort, admitted);
    })().catch((err: unknown) => {
      // A client that went away mid-request is no error of the server's: there is no one to answer.
      if (req.destroyed) return void res.destroy();
      process.stderr.write(`local S3: ${(err as Error).stack ?? String(err)}\n`);
      if (res.headersSent) res.destroy();
      else answer(res, refusal(500, 'InternalError', 'We encountered an internal error. Please try again.'));
    });
  });
  server.on('clientError', (_err: Error, socket: Duplex) => {
    const body = errorXml(refusal(400, 'BadRequest', 'An error occurred when parsing the HTTP request.'));
    if (socket.writable)
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    else socket.destroy();
  });
  return server;
}

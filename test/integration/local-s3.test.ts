import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, inject, it } from 'vitest';
import {
  attachmentObjectKey,
  copyObject,
  deleteObjects,
  headObject,
  readObject,
  signDownloadUrl,
  signUploadForm,
  stagingObjectKey,
} from '../../lib/aws/objects.ts';
import { Sha256 } from '../../lib/aws/sha256.ts';
import { startLocalS3 } from '../../tools/local/s3.ts';
import { rawExchange } from '../support/raw-http.ts';

/** Posts a pre-signed form with its fields as given, then the file last (as a browser does). */
export async function postForm(form: { url: string; fields: Record<string, string> }, file: Buffer, type: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type }), 'file');
  return fetch(form.url, { method: 'POST', body });
}

const listening = (port: number) =>
  ['/proc/net/tcp', '/proc/net/tcp6']
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === '0A' && local?.endsWith(`:${port.toString(16).toUpperCase().padStart(4, '0')}`))
    .map(([, local]) => local!.split(':')[0]!);

describe('the local S3-compatible server', () => {
  it.skipIf(!existsSync('/proc/net/tcp'))('listens on 127.0.0.1 only', () => {
    const addresses = listening(Number(new URL(inject('s3Endpoint')).port));
    expect(addresses.length).toBeGreaterThan(0);
    // 0100007F: 127.0.0.1 in /proc's byte order.
    for (const address of addresses) expect(address).toBe('0100007F');
  });

  it('takes a pre-signed form upload, answers HeadObject and a pre-signed GET, and deletes', async () => {
    const file = Buffer.from('a log line\n'.repeat(50));
    const key = attachmentObjectKey(999_001, 1, 1, Date.now() % 1_000_000);
    const sha = createHash('sha256').update(file).digest('base64');
    const form = await signUploadForm({ key, contentType: 'text/plain', size: file.length, sha256Base64: sha, seconds: 60 });
    expect((await postForm(form, file, 'text/plain')).status).toBe(204);

    expect(await headObject(key)).toMatchObject({ size: file.length, contentType: 'text/plain' });
    expect((await readObject(key))?.equals(file)).toBe(true);

    const { url } = await signDownloadUrl(key, { seconds: 60, disposition: 'attachment; filename="app.log"' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="app.log"');
    expect(Buffer.from(await res.arrayBuffer()).equals(file)).toBe(true);

    // Signed ten minutes ago for five: expired (the server checks a URL's expiry).
    const old = await signDownloadUrl(key, { seconds: 300, disposition: 'inline', now: new Date(Date.now() - 600_000) });
    expect((await fetch(old.url)).status).toBe(403);

    await deleteObjects([key, key]);
    expect(await headObject(key)).toBeUndefined();
  });

  it("copies a posted file to the attachment's key only while it is the object checked (its ETag), with its type", async () => {
    const id = Date.now() % 1_000_000;
    const posted = stagingObjectKey(999_002, id, 'f00d');
    const key = attachmentObjectKey(999_002, 1, 1, id);
    const first = Buffer.from('first\n');
    const form = await signUploadForm({
      key: posted,
      contentType: 'text/plain',
      size: first.length,
      sha256Base64: null,
      seconds: 60,
    });
    expect((await postForm(form, first, 'text/plain')).status).toBe(204);
    const checked = (await headObject(posted))!;
    // Posted again (other bytes of the same size) after the check: the copy is refused, or at least found to be of another object.
    expect((await postForm(form, Buffer.from('other\n'), 'text/plain')).status).toBe(204);
    expect(await copyObject(posted, key, checked.etag)).toBe(false);
    // Posted back: the copy is of the object checked.
    expect((await postForm(form, first, 'text/plain')).status).toBe(204);
    expect(await copyObject(posted, key, checked.etag)).toBe(true);
    expect(await headObject(key)).toMatchObject({ size: first.length, contentType: 'text/plain', etag: checked.etag });
    expect((await readObject(key))?.equals(first)).toBe(true);
    await deleteObjects([posted, key]);
  });
});

const endpoint = () => process.env.S3_ENDPOINT!;
const bucket = () => process.env.ATTACHMENTS_BUCKET!;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64');
let serial = 0;
/** A key of its own under organisation `org` (as the service makes them). */
const freshKey = (org: number) => attachmentObjectKey(org, 1, 1, (Date.now() % 1_000_000) * 100 + serial++);

/** An object put with the service's own form: its key, and its bytes. */
async function stored(org: number, text = 'secret of organisation ' + org) {
  const key = freshKey(org);
  const file = Buffer.from(text);
  const form = await signUploadForm({
    key,
    contentType: 'text/plain',
    size: file.length,
    sha256Base64: sha256(file),
    seconds: 60,
  });
  expect((await postForm(form, file, 'text/plain')).status).toBe(204);
  return { key, file };
}

/** A request to the local server signed in its Authorization header, as the SDK signs (`secret`: whose key). */
async function headerSigned(method: string, key: string, headers: Record<string, string> = {}, secret = 'S3RVER') {
  const url = new URL(`${endpoint()}/${bucket()}/${key}`);
  const signer = new SignatureV4({
    service: 's3',
    region: process.env.AWS_REGION!,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: secret },
    sha256: Sha256,
    uriEscapePath: false,
  });
  const request = {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers },
  };
  return { url, headers: (await signer.sign(request)).headers };
}

/** The error code of S3's XML answer. */
const codeOf = async (res: Response) => /<Code>([^<]+)<\/Code>/.exec(await res.text())?.[1];

describe('the local S3 server checks what S3 checks', () => {
  it('refuses an unsigned read, write or delete (403 AccessDenied), and a request signed with another key', async () => {
    const a = await stored(999_101);
    const url = `${endpoint()}/${bucket()}/${a.key}`;
    const read = await fetch(url);
    expect([read.status, await codeOf(read)]).toEqual([403, 'AccessDenied']);
    const overwrite = await fetch(url, { method: 'PUT', body: 'taken over', headers: { 'Content-Type': 'text/plain' } });
    expect([overwrite.status, await codeOf(overwrite)]).toEqual([403, 'AccessDenied']);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(403);
    const forged = await headerSigned('GET', a.key, {}, 'not-the-secret');
    const res = await fetch(forged.url, { headers: forged.headers });
    expect([res.status, await codeOf(res)]).toEqual([403, 'SignatureDoesNotMatch']);
    expect((await readObject(a.key))?.equals(a.file)).toBe(true);
  });

  it("refuses a URL signed for one organisation's object with another's key, and a URL whose expiry was moved", async () => {
    const a = await stored(999_102);
    const b = await stored(999_103);
    const { url } = await signDownloadUrl(a.key, { seconds: 60, disposition: 'inline' });
    expect((await fetch(url)).status).toBe(200);
    const crossed = await fetch(url.replace(a.key, b.key));
    expect([crossed.status, await codeOf(crossed)]).toEqual([403, 'SignatureDoesNotMatch']);

    const old = await signDownloadUrl(a.key, { seconds: 1, disposition: 'inline', now: new Date(Date.now() - 5_000) });
    const expired = await fetch(old.url);
    expect([expired.status, await codeOf(expired)]).toEqual([403, 'AccessDenied']);
    const extended = new URL(old.url);
    extended.searchParams.set('X-Amz-Expires', '604800');
    const again = await fetch(extended);
    expect([again.status, await codeOf(again)]).toEqual([403, 'SignatureDoesNotMatch']);
  });

  it('takes a signed CopyObject, and refuses one whose source was swapped or added unsigned', async () => {
    const a = await stored(999_104);
    const b = await stored(999_105);
    const target = freshKey(999_104);
    const copy = await headerSigned('PUT', target, { 'x-amz-copy-source': `/${bucket()}/${a.key}` });
    const copied = await fetch(copy.url, { method: 'PUT', headers: copy.headers });
    expect(copied.status).toBe(200);
    expect((await readObject(target))?.equals(a.file)).toBe(true);

    const swapped = await fetch(copy.url, {
      method: 'PUT',
      headers: { ...copy.headers, 'x-amz-copy-source': `/${bucket()}/${b.key}` },
    });
    expect([swapped.status, await codeOf(swapped)]).toEqual([403, 'SignatureDoesNotMatch']);
    const plain = await headerSigned('PUT', freshKey(999_104));
    const added = await fetch(plain.url, {
      method: 'PUT',
      headers: { ...plain.headers, 'x-amz-copy-source': `/${bucket()}/${b.key}` },
    });
    expect([added.status, await codeOf(added)]).toEqual([403, 'AccessDenied']);
    const escaping = await headerSigned('PUT', freshKey(999_104), { 'x-amz-copy-source': `/${bucket()}/../../etc/passwd` });
    expect((await fetch(escaping.url, { method: 'PUT', headers: escaping.headers })).status).toBe(400);
  });

  it('refuses a form whose file or fields break its policy, or whose policy expired or was changed, storing nothing', async () => {
    const file = Buffer.from('exactly these bytes\n');
    const key = freshKey(999_106);
    const input = { key, contentType: 'text/plain', size: file.length, sha256Base64: sha256(file), seconds: 60 };
    const form = await signUploadForm(input);
    const refusals: [string, Promise<Response>][] = [
      ['EntityTooLarge', postForm(form, Buffer.concat([file, Buffer.from('!')]), 'text/plain')],
      ['EntityTooSmall', postForm(form, file.subarray(1), 'text/plain')],
      ['BadDigest', postForm(form, Buffer.from('exactly those bytes\n'), 'text/plain')],
      ['AccessDenied', postForm({ ...form, fields: { ...form.fields, 'Content-Type': 'text/html' } }, file, 'text/html')],
      ['AccessDenied', postForm({ ...form, fields: { ...form.fields, key: freshKey(999_107) } }, file, 'text/plain')],
      [
        'AccessDenied',
        postForm({ ...form, fields: { ...form.fields, success_action_redirect: 'http://127.0.0.1:9/' } }, file, 'text/plain'),
      ],
      ['AccessDenied', postForm(await signUploadForm({ ...input, now: new Date(Date.now() - 120_000) }), file, 'text/plain')],
    ];
    const changed = JSON.parse(Buffer.from(form.fields.Policy!, 'base64').toString()) as { expiration: string };
    changed.expiration = '2099-01-01T00:00:00Z';
    const policy = Buffer.from(JSON.stringify(changed)).toString('base64');
    refusals.push([
      'SignatureDoesNotMatch',
      postForm({ ...form, fields: { ...form.fields, Policy: policy } }, file, 'text/plain'),
    ]);
    const { Policy: _, ...unsigned } = form.fields;
    refusals.push(['AccessDenied', postForm({ ...form, fields: unsigned }, file, 'text/plain')]);
    for (const [code, pending] of refusals) {
      const res = await pending;
      expect({ status: res.status, code: await codeOf(res) }).toEqual({
        status: code.startsWith('Entity') || code === 'BadDigest' ? 400 : 403,
        code,
      });
    }
    expect(await headObject(key)).toBeUndefined();
    expect((await postForm(form, file, 'text/plain')).status).toBe(204);
    expect((await readObject(key))?.equals(file)).toBe(true);
  });

  it('refuses a key with a `..` segment or a leading `/`, writing nothing outside its data folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sts-s3-keys-'));
    const dataDir = join(root, 'a', 'b');
    mkdirSync(dataDir, { recursive: true });
    const own = await startLocalS3({ bucket: bucket(), dataDir });
    try {
      const file = Buffer.from('escaped\n');
      for (const key of ['../../../escaped', 'o/../../../../escaped', '/escaped', 'o/./x']) {
        const form = await signUploadForm({ key, contentType: 'text/plain', size: file.length, sha256Base64: null, seconds: 60 });
        const res = await postForm({ ...form, url: `${own.endpoint}/${bucket()}` }, file, 'text/plain');
        expect({ key, status: res.status }).toEqual({ key, status: 400 });
      }
      const listed = readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name)));
      expect(listed.filter((path) => !path.startsWith(join('a', 'b', 's3', bucket())))).toEqual([]);
      expect(listed.filter((path) => path.includes('escaped'))).toEqual([]);
      const bad = await fetch(`${own.endpoint}/../x`);
      expect(bad.status).toBeGreaterThanOrEqual(400);
    } finally {
      await own.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers malformed requests in XML and serves on', async () => {
    const port = Number(new URL(endpoint()).port);
    const form =
      'POST /' + bucket() + ' HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 9\r\n\r\n--x\r\ngarb';
    for (const request of [
      'GET // HTTP/1.1\r\n\r\n',
      'GET /%zz/%zz HTTP/1.1\r\n\r\n',
      'GET /../../etc/passwd HTTP/1.1\r\n\r\n',
      'GET http://elsewhere/x HTTP/1.1\r\n\r\n',
      `GET /${bucket()}/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=%zz HTTP/1.1\r\n\r\n`,
      `GET /${bucket()}/x HTTP/1.1\r\nAuthorization: AWS4-HMAC-SHA256 Credential=S3RVER/1/2/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}\r\n\r\n`,
      form,
      'BREW / HTTP/1.1\r\n\r\n',
    ])
      expect(await rawExchange(port, request), request.slice(0, 60)).toMatch(
        /^HTTP\/1\.1 4\d\d [^]*content-type: application\/xml/i,
      );
    const { key, file } = await stored(999_108);
    expect((await readObject(key))?.equals(file)).toBe(true);
  });
});

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
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
} from '../../lib/db/objects.ts';

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

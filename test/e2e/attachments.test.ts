import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { attachmentObjectKey, headObject, putObject } from '../../lib/aws/objects.ts';
import { getAttachment, organisationBytes } from '../../lib/db/attachments/attachments.ts';
import { attachmentCounterDifferences } from '../../lib/jobs/attachment-counters.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { apiClient, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { mcpClient } from '../support/mcp.ts';
import { stagedFiles, sweepLater } from '../support/local-expiry.ts';
import { purgeOnceHeld } from '../support/trash.ts';

/**
 * Attachments (docs/attachments.md) through the local gateway and the local S3-compatible server:
 * declared, uploaded with the pre-signed form by a real HTTP client, completed, listed, downloaded
 * and deleted. Limits set small for this file (read on first use: lib/config.ts).
 */
process.env.ATTACHMENT_MAX_BYTES = String(64 * 1024);
process.env.ATTACHMENT_MAX_PER_ISSUE = '4';
process.env.ATTACHMENT_MAX_ORGANISATION_BYTES = String(100 * 1024);
process.env.ATTACHMENT_DOWNLOAD_SECONDS = '2';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';

const gateway = useGateway();

interface Upload {
  url: string;
  fields: Record<string, string>;
}

/** Posts the form's fields, then the file, as a browser's form post does. */
async function postForm(upload: Upload, file: Buffer, type: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type }), 'file');
  return fetch(upload.url, { method: 'POST', body });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(200, 7)]);

async function setup() {
  const clients = await orgWithClients(gateway);
  const p = (await clients.admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const issue = (await clients.admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title: 'Crash on save' } })).body;
  return { ...clients, issue, base: `/api/v1/issues/${issue.issue_number}/attachments` };
}

/** `GET …/attachments/{id}` without following its redirect: the status and where it points. */
async function download(token: string, path: string) {
  const res = await fetch(`${gateway.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` }, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location') };
}

/** Where an attachment's file lives once completed (the form posts elsewhere: docs/attachments.md). */
const fileKey = (orgId: number, issue: { project_id: number; id: number }, id: number) =>
  attachmentObjectKey(orgId, issue.project_id, issue.id, id);

async function declare(client: ApiClient, base: string, file: Buffer, overrides: Record<string, unknown> = {}) {
  return client.post(base, {
    attachment: { name: 'screenshot.png', content_type: 'image/png', size: file.length, sha256: sha(file), ...overrides },
  });
}

/** Where a test's attachments go: its issue's attachments path (`base`), that issue and its organisation. */
interface On {
  base: string;
  orgId: number;
  issue: { project_id: number; id: number };
}

/** A ready attachment: declared by `client`, its file posted with the form, completed; `key` is its file's own (not the form's). */
async function uploaded(client: ApiClient, on: On, file: Buffer, overrides: Record<string, unknown> = {}) {
  const created = await declare(client, on.base, file, overrides);
  expect(created.status).toBe(201);
  expect((await postForm(created.body.upload, file, 'image/png')).status).toBe(204);
  expect((await client.post(`${on.base}/${created.body.id}/complete`)).status).toBe(200);
  return { id: created.body.id as number, key: fileKey(on.orgId, on.issue, created.body.id) };
}

/** The issue's `attachments_count` (its place in the files-per-issue limit), as stored. */
async function filesCounted(orgId: number, issue: { project_id: number; id: number }) {
  const key = keys.issue(orgId, issue.project_id, issue.id);
  return (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item?.attachments_count;
}

describe('attachments', () => {
  it('go pending → ready: declared, posted to S3 with the form, completed, listed with a working download URL', async () => {
    const { admin, base, issue, org } = await setup();
    const created = await declare(admin, base, png);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      issue_id: issue.id,
      comment_id: null,
      name: 'screenshot.png',
      content_type: 'image/png',
      size: png.length,
      sha256: sha(png),
      status: 'pending',
      uploader_id: org.admin.id,
      download_url: null,
    });
    expect(created.body.upload.method).toBe('POST');
    expect(new URL(created.body.upload.url).hostname).toBe('127.0.0.1');
    // The form posts to this declaration's own key, which carries the organisation.
    expect(created.body.upload.fields.key).toMatch(new RegExp(`^staging/o/${String(org.orgId).padStart(10, '0')}/`));

    // Not there yet: complete refuses, the download too.
    expect((await admin.post(`${base}/${created.body.id}/complete`)).status).toBe(422);
    expect((await admin.get(`${base}/${created.body.id}`)).status).toBe(422);
    expect((await download(org.admin.token, `${base}/${created.body.id}`)).status).toBe(422);

    expect((await postForm(created.body.upload, png, 'image/png')).status).toBe(204);
    const done = await admin.post(`${base}/${created.body.id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('ready');
    // Completing again answers it as it is.
    expect((await admin.post(`${base}/${created.body.id}/complete`)).body.status).toBe('ready');

    const list = await admin.get(base);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const [one] = list.body;
    expect(one).toMatchObject({ id: created.body.id, status: 'ready' });
    const file = await fetch(one.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('content-disposition')).toMatch(/^inline; filename="screenshot.png"/);
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);

    // GET …/{id} redirects to a fresh URL; that URL expires (2 s here).
    const redirect = await download(org.admin.token, `${base}/${created.body.id}`);
    expect(redirect.status).toBe(302);
    const location = redirect.location!;
    expect((await fetch(location)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    expect((await fetch(location)).status).toBe(403);
  });

  it('downloads what a browser would run (HTML, SVG, JavaScript) as attachment, never inline', async () => {
    const { admin, base, org } = await setup();
    const html = Buffer.from('<script>alert(1)</script>');
    const created = await declare(admin, base, html, { name: 'page.html', content_type: 'text/html' });
    await postForm(created.body.upload, html, 'text/html');
    await admin.post(`${base}/${created.body.id}/complete`);
    const res = await fetch((await download(org.admin.token, `${base}/${created.body.id}`)).location!);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
  });

  it("refuses a file of another size, type or checksum than declared: S3 at the post (the form's policy), and complete if another file got there", async () => {
    const { admin, base } = await setup();
    const other = Buffer.concat([png, Buffer.from('x')]);
    const same = Buffer.from(png);
    same[20] = 0;
    const wrongSize = await declare(admin, base, png);
    const wrongType = await declare(admin, base, png);
    const wrongSum = await declare(admin, base, png);
    // The local server checks the policy as S3 does (docs/attachments.md#who-refuses-a-wrong-file).
    expect((await postForm(wrongSize.body.upload, other, 'image/png')).status).toBe(400);
    const fields = { ...wrongType.body.upload.fields, 'Content-Type': 'text/html' };
    expect((await postForm({ ...wrongType.body.upload, fields }, png, 'text/html')).status).toBe(403);
    expect((await postForm(wrongSum.body.upload, same, 'image/png')).status).toBe(400);
    // Another file put at the key by other means (the service's own signed PutObject) is still refused at complete.
    const put = (upload: Upload, bytes: Buffer, type: string) =>
      putObject(upload.fields.key!, Readable.from([bytes]), {
        size: bytes.length,
        contentType: type,
        sha256Base64: createHash('sha256').update(bytes).digest('base64'),
      });
    await put(wrongSize.body.upload, other, 'image/png');
    await put(wrongType.body.upload, png, 'text/html');
    await put(wrongSum.body.upload, same, 'image/png');
    const refused = await admin.post(`${base}/${wrongSize.body.id}/complete`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors.join()).toMatch(/size: the uploaded file has 209 bytes, not the 208 declared/);
    expect((await admin.post(`${base}/${wrongType.body.id}/complete`)).body.errors.join()).toMatch(/content_type/);
    expect((await admin.post(`${base}/${wrongSum.body.id}/complete`)).body.errors.join()).toMatch(/sha256/);

    const list = (await admin.get(base)).body as { status: string }[];
    expect(list.map((a) => a.status)).toEqual(['pending', 'pending', 'pending']);
  });

  it('refuses a type outside the allow-list, a file over the size limit, bad names and unknown keys, writing nothing', async () => {
    const { admin, base } = await setup();
    for (const attachment of [
      { name: 'a.exe', content_type: 'application/x-msdownload', size: 10 },
      { name: 'big.png', content_type: 'image/png', size: 64 * 1024 + 1 },
      { name: 'a/b.png', content_type: 'image/png', size: 10 },
      { name: 'a.png', content_type: 'image/png', size: 0 },
      { name: 'a.png', content_type: 'image/png', size: 10, sha256: 'abc' },
      { name: 'a.png', content_type: 'image/png', size: 10, colour: 'red' },
    ]) {
      const res = await admin.post(base, { attachment });
      expect(res.status, JSON.stringify(attachment)).toBe(422);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expect((await admin.get(base)).body).toEqual([]);
  });

  it('holds the files-per-issue and the organisation-bytes limits under concurrency, the counter exact', async () => {
    const { admin, base, org } = await setup();
    const file = Buffer.alloc(30 * 1024, 1);
    // 4 files per issue: of 8 at once, 4 are declared.
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => declare(admin, base, file, { name: 'a.bin', content_type: 'application/octet-stream' })),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(3);
    // 100 KB per organisation: 3 × 30 KB fit, the fourth would pass it.
    expect(burst.filter((r) => r.status === 422).map((r) => r.body.errors[0])).toEqual(
      expect.arrayContaining([expect.stringMatching(/organisation's attachments past 102400 bytes/)]),
    );
    expect(await organisationBytes(org.orgId)).toBe(3 * 30 * 1024);
    const small = await declare(admin, base, Buffer.alloc(10));
    expect(small.status).toBe(201);
    expect((await declare(admin, base, Buffer.alloc(10))).body.errors[0]).toMatch(/already has 4 attachments/);

    // A delete gives its place back at once, in the same transaction.
    expect((await admin.delete(`${base}/${small.body.id}`)).status).toBe(204);
    expect(await organisationBytes(org.orgId)).toBe(3 * 30 * 1024);
    expect((await declare(admin, base, Buffer.alloc(10))).status).toBe(201);
  });

  it("is 404 on every route for another organisation's issue and attachment, and for an unknown comment", async () => {
    const { admin, base } = await setup();
    const created = await declare(admin, base, png);
    const other = await orgWithClients(gateway);
    const id = created.body.id;
    for (const res of [
      await other.admin.get(base),
      await other.admin.post(base, { attachment: { name: 'a.png', content_type: 'image/png', size: 10 } }),
      await download(other.org.admin.token, `${base}/${id}`),
      await other.admin.get(`${base}/${id}`),
      await other.admin.post(`${base}/${id}/complete`),
      await other.admin.delete(`${base}/${id}`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await admin.get(`${base}/999999`)).status).toBe(404);
    expect((await declare(admin, base, png, { comment_id: 999999 })).status).toBe(404);
  });

  it("attaches to a comment of the issue, listed with the issue's; kept in the trash with the comment, back at its restore, removed at its purge", async () => {
    const { admin, base, issue, org } = await setup();
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const comment = (
      await admin.post(`/api/v1/projects/${issue.project_id}/issues/${issue.id}/comments`, { comment: { body: 'see log' } })
    ).body;
    const log = Buffer.from('12:00 ERROR save failed: disk full\n');
    const ready = async (file: Buffer, overrides: Record<string, unknown>) => {
      const created = await declare(admin, base, file, overrides);
      expect(created.status).toBe(201);
      expect((await postForm(created.body.upload, file, String(overrides.content_type ?? 'image/png'))).status).toBe(204);
      expect((await admin.post(`${base}/${created.body.id}/complete`)).status).toBe(200);
      return { id: created.body.id as number, key: fileKey(org.orgId, issue, created.body.id), file };
    };
    const onComment = [
      await ready(png, { comment_id: comment.id }),
      await ready(log, { name: 'save.log', content_type: 'text/plain', comment_id: comment.id }),
    ];
    const onIssue = await ready(png, { name: 'own.png' });
    const bytes = 2 * png.length + log.length;
    expect(await organisationBytes(org.orgId)).toBe(bytes);
    // The comment can still be edited as before.
    expect((await admin.patch(`/api/v1/comments/${comment.id}`, { comment: { body: 'see the log' } })).status).toBe(200);

    /** Every read of the issue's attachments: the list, each one's download and its MCP read (URLs are signed per answer). */
    const reads = async () => {
      const unsigned = (a: Record<string, unknown>): Record<string, unknown> => ({
        ...a,
        download_url: typeof a.download_url,
        download_expires_at: null,
      });
      const list = await admin.get(base);
      const each = async ({ id }: { id: number }) => {
        const got = await mcp.call('get_attachment', { issue_number: issue.issue_number, attachment_id: id });
        const structured = got.result.structuredContent as { attachment: Record<string, unknown> } | undefined;
        return {
          download: (await download(org.admin.token, `${base}/${id}`)).status,
          mcp: got.result.isError ? got.text : unsigned(structured!.attachment),
        };
      };
      return {
        status: list.status,
        list: (list.body as Record<string, unknown>[]).map(unsigned),
        each: await Promise.all([...onComment, onIssue].map(each)),
      };
    };
    /** The issue's `attachments_count` (its place in the files-per-issue limit), as stored. */
    const counted = async () =>
      (
        await db.send(
          new GetCommand({
            TableName: tableName(),
            Key: keys.issue(org.orgId, issue.project_id, issue.id),
            ConsistentRead: true,
          }),
        )
      ).Item?.attachments_count;
    const before = await reads();
    expect(before.list.map((a) => [a.id, a.comment_id, a.status])).toEqual([
      [onComment[0]!.id, comment.id, 'ready'],
      [onComment[1]!.id, comment.id, 'ready'],
      [onIssue.id, null, 'ready'],
    ]);
    expect(before.each.map((e) => e.download)).toEqual([302, 302, 302]);
    expect(await counted()).toBe(3);

    // Into the trash with its comment (the same 3 calls): in no answer, its file and bytes kept.
    const deleted = await admin.delete(`/api/v1/comments/${comment.id}`);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    const trashed = await reads();
    expect(trashed.list).toEqual([before.list[2]]);
    expect(trashed.each.map((e) => e.download)).toEqual([404, 404, 302]);
    expect(trashed.each.slice(0, 2).map((e) => e.mcp)).toEqual([
      expect.stringMatching(/not found/i),
      expect.stringMatching(/not found/i),
    ]);
    for (const { id } of onComment) {
      expect((await admin.post(`${base}/${id}/complete`)).status).toBe(404);
      expect((await admin.delete(`${base}/${id}`)).status).toBe(404);
    }
    expect(await organisationBytes(org.orgId)).toBe(bytes);
    for (const { key } of onComment) expect(await headObject(key)).toBeDefined();
    // Their places among the issue's files are given back (by the stream consumer, a moment later):
    // of the 4 files an issue may have here, 3 can be declared again.
    await eventually('the files of the trashed comment no longer counted', counted, (n) => n === 1);
    const meanwhile = [];
    for (let i = 0; i < 3; i++) meanwhile.push(await declare(admin, base, Buffer.alloc(10)));
    expect(meanwhile.map((r) => r.status)).toEqual([201, 201, 201]);
    expect((await declare(admin, base, Buffer.alloc(10))).body.errors[0]).toMatch(/already has 4 attachments/);
    for (const r of meanwhile) expect((await admin.delete(`${base}/${r.body.id}`)).status).toBe(204);

    // Back with its restore: every read as it was, the same files downloaded.
    expect((await admin.post(`/api/v1/trash/comment-${comment.id}/restore`)).status).toBe(200);
    expect(await reads()).toEqual(before);
    for (const a of (await admin.get(base)).body as { id: number; download_url: string }[]) {
      const file = [...onComment, onIssue].find((f) => f.id === a.id)!.file;
      expect(Buffer.from(await (await fetch(a.download_url)).arrayBuffer()).equals(file)).toBe(true);
    }
    await eventually('the files of the restored comment counted again', counted, (n) => n === 3);

    // Deleted again and purged: the items, their files and their bytes go.
    expect((await admin.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/comment-${comment.id}`)).status).toBe(204);
    for (const { key } of onComment)
      await eventually(
        `${key} removed`,
        () => headObject(key),
        (o) => o === undefined,
      );
    await eventually(
      'the bytes of the purged files',
      () => organisationBytes(org.orgId),
      (n) => n === png.length,
    );
    for (const { id } of onComment) expect(await getAttachment(org.orgId, issue.project_id, issue.id, id)).toBeUndefined();
    expect(await counted()).toBe(1);
    expect(await reads()).toEqual({ ...before, list: [before.list[2]], each: trashed.each });
    const stored = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, issue.project_id, issue.id), ConsistentRead: true }),
    );
    expect(stored.Item?.comments_with_files_in_trash).toBeUndefined();
    expect(await headObject(onIssue.key)).toBeDefined();
    await mcp.close();
  });

  it('go into the trash at their delete and come back with their file; purged, the file is removed from S3', async () => {
    const { admin, member, base, issue, org } = await setup();
    const on = { base, orgId: org.orgId, issue };
    const { id, key } = await uploaded(member, on, png);
    const [shown] = (await member.get(base)).body;
    expect(await organisationBytes(org.orgId)).toBe(png.length);
    expect(await filesCounted(org.orgId, issue)).toBe(1);

    // Deleted by its uploader, as before (204, the same 5 calls), into the trash: in no answer, its file and bytes kept.
    const deleted = await member.delete(`${base}/${id}`);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 5]);
    expect((await member.get(base)).body).toEqual([]);
    expect((await member.get(`${base}/${id}`)).status).toBe(404);
    expect((await download(org.member.token, `${base}/${id}`)).status).toBe(404);
    expect((await member.post(`${base}/${id}/complete`)).status).toBe(404);
    expect((await member.delete(`${base}/${id}`)).status).toBe(404);
    const listed = await member.get('/api/v1/trash?kind=attachment');
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: `attachment-${id}`,
        kind: 'attachment',
        item_id: id,
        title: 'screenshot.png',
        deleted_by: org.member.id,
      }),
    ]);
    expect(await headObject(key)).toBeDefined();
    // Its bytes still held (it is still stored), its place on the issue given back at once.
    expect(await organisationBytes(org.orgId)).toBe(png.length);
    expect(await filesCounted(org.orgId, issue)).toBe(0);

    // Restored by whoever deleted it: the same attachment, its file downloadable again, counted again.
    const restored = await member.post(`/api/v1/trash/attachment-${id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({
      kind: 'attachment',
      item: { ...shown, download_url: expect.any(String), download_expires_at: expect.any(String) },
    });
    expect((await member.get(base)).body.map((a: { id: number }) => a.id)).toEqual([id]);
    const again = await download(org.member.token, `${base}/${id}`);
    expect(again.status).toBe(302);
    expect(Buffer.from(await (await fetch(again.location!)).arrayBuffer()).equals(png)).toBe(true);
    expect(await filesCounted(org.orgId, issue)).toBe(1);
    expect((await member.get('/api/v1/trash?kind=attachment')).body).toEqual([]);
    expect((await member.post(`/api/v1/trash/attachment-${id}/restore`)).status).toBe(404);

    // Deleted again and purged: its item, its file and its bytes go.
    expect((await member.delete(`${base}/${id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/attachment-${id}`)).status).toBe(204);
    await eventually(
      'the file removed',
      () => headObject(key),
      (object) => object === undefined,
    );
    await eventually(
      'its bytes given back',
      () => organisationBytes(org.orgId),
      (n) => n === 0,
    );
    expect(await getAttachment(org.orgId, issue.project_id, issue.id, id)).toBeUndefined();
    expect(await filesCounted(org.orgId, issue)).toBe(0);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);
  });

  it('are deleted by their uploader, the author of their comment or an admin only; a comment takes files from its author or an admin', async () => {
    const { admin, member, base, issue, org } = await setup();
    const on = { base, orgId: org.orgId, issue };
    const other = await createAccountInOrg(org.orgId, {
      name: 'Olu Other',
      email: `other-${org.orgId}@example.com`,
      role: 'member',
    });
    const otherMember = apiClient(gateway.baseUrl, other.token);
    const commentOf = async (client: ApiClient) =>
      (await client.post(`/api/v1/projects/${issue.project_id}/issues/${issue.id}/comments`, { comment: { body: 'see file' } }))
        .body.id as number;
    const adminComment = await commentOf(admin);
    const memberComment = await commentOf(member);

    // Another member's file, and an admin's file on the admin's own comment: 403, nothing written, the file still there.
    const mine = await uploaded(member, on, png);
    const onAdminComment = await uploaded(admin, on, png, { comment_id: adminComment });
    const pendingOfMember = await declare(member, base, Buffer.alloc(10));
    for (const { id } of [mine, onAdminComment, { id: pendingOfMember.body.id as number }]) {
      const refused = await (id === onAdminComment.id ? member : otherMember).delete(`${base}/${id}`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(
        new RegExp(`Only its uploader, the author of its comment or an admin may delete attachment ${id}`),
      );
    }
    expect((await admin.get(base)).body.map((a: { id: number }) => a.id)).toEqual([
      mine.id,
      onAdminComment.id,
      pendingOfMember.body.id,
    ]);
    for (const { key } of [mine, onAdminComment]) expect(await headObject(key)).toBeDefined();
    expect(await filesCounted(org.orgId, issue)).toBe(3);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);

    // Files on someone else's comment: refused to a member (403, nothing written), on REST and MCP alike.
    const onOthers = await declare(member, base, png, { comment_id: adminComment });
    expect(onOthers.status).toBe(403);
    expect(onOthers.body.error).toBe(`Only the author of comment ${adminComment} or an admin may attach files to it`);
    const mcp = await mcpClient(gateway.baseUrl, org.member.token);
    const file = { issue_number: issue.issue_number, name: 'a.txt', content_type: 'text/plain', comment_id: adminComment };
    expect(await mcp.error('add_attachment', { ...file, data: 'aGk=' })).toMatch(/Only the author of comment/);
    expect(await mcp.error('add_attachment', { ...file, size: 2 })).toMatch(/Only the author of comment/);
    await mcp.close();
    expect(await organisationBytes(org.orgId)).toBe(2 * png.length + 10);
    expect(await filesCounted(org.orgId, issue)).toBe(3);

    // Its uploader, the author of its comment (an admin's file on a member's comment), an admin: 204.
    const adminsOnMemberComment = await uploaded(admin, on, png, { comment_id: memberComment });
    expect((await member.delete(`${base}/${mine.id}`)).status).toBe(204);
    expect((await member.delete(`${base}/${adminsOnMemberComment.id}`)).status).toBe(204);
    expect((await admin.delete(`${base}/${pendingOfMember.body.id}`)).status).toBe(204);
    expect((await admin.delete(`${base}/${onAdminComment.id}`)).status).toBe(204);
    const trash = (await admin.get('/api/v1/trash?kind=attachment')).body as { item_id: number }[];
    expect(trash.map((t) => t.item_id).sort()).toEqual([mine.id, adminsOnMemberComment.id, onAdminComment.id].sort());
    // A member's own comment takes their files.
    expect((await declare(member, base, png, { comment_id: memberComment })).status).toBe(201);
  });

  it('trashed on their own stay there while their comment is deleted and restored, and come back after it', async () => {
    const { admin, base, issue, org } = await setup();
    const on = { base, orgId: org.orgId, issue };
    const comment = (
      await admin.post(`/api/v1/projects/${issue.project_id}/issues/${issue.id}/comments`, { comment: { body: 'see log' } })
    ).body;
    const [kept, trashed] = [
      await uploaded(admin, on, png, { comment_id: comment.id }),
      await uploaded(admin, on, png, { comment_id: comment.id }),
    ];
    expect((await admin.delete(`${base}/${trashed.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);
    await eventually(
      "the comment's file no longer counted",
      () => filesCounted(org.orgId, issue),
      (n) => n === 0,
    );
    const refused = await admin.post(`/api/v1/trash/attachment-${trashed.id}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe(
      `Attachment ${trashed.id} cannot come back: its comment ${comment.id} is in the trash (restore it first)`,
    );

    // The comment back: its own file with it, not the one trashed on its own (counted by the consumer a moment later).
    expect((await admin.post(`/api/v1/trash/comment-${comment.id}/restore`)).status).toBe(200);
    expect((await admin.get(base)).body.map((a: { id: number }) => a.id)).toEqual([kept.id]);
    await eventually(
      "the comment's file counted again",
      () => filesCounted(org.orgId, issue),
      (n) => n === 1,
    );
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);
    expect((await admin.post(`/api/v1/trash/attachment-${trashed.id}/restore`)).status).toBe(200);
    expect((await admin.get(base)).body.map((a: { id: number }) => a.id)).toEqual([kept.id, trashed.id]);
    expect(await filesCounted(org.orgId, issue)).toBe(2);
    expect(await organisationBytes(org.orgId)).toBe(2 * png.length);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);
  });

  it("go with their issue, sprint and project: files removed from S3, the organisation's bytes exact", async () => {
    const { admin, org } = await setup();
    const p = (await admin.post('/api/v1/projects', { project: { name: 'Gemini', prefix: randomPrefix() } })).body;
    const sprint = (await admin.post(`/api/v1/projects/${p.id}/sprints`, { sprint: { name: 'One' } })).body;
    const newIssue = async (list: string) => (await admin.post(`${list}/issues`, { issue: { title: 'With files' } })).body;
    const inBacklog = await newIssue(`/api/v1/projects/${p.id}`);
    const inSprint = await newIssue(`/api/v1/projects/${p.id}/sprints/${sprint.id}`);
    const kept = await newIssue(`/api/v1/projects/${p.id}`);
    const comment = (await admin.post(`/api/v1/projects/${p.id}/issues/${inBacklog.id}/comments`, { comment: { body: 'log' } }))
      .body;
    const upload = async (
      issue: { issue_number: string; project_id: number; id: number },
      size: number,
      extra: Record<string, unknown> = {},
    ) => {
      const file = Buffer.alloc(size, 3);
      const base = `/api/v1/issues/${issue.issue_number}/attachments`;
      const created = await declare(admin, base, file, { name: 'a.bin', content_type: 'application/octet-stream', ...extra });
      expect(created.status).toBe(201);
      expect((await postForm(created.body.upload, file, 'application/octet-stream')).status).toBe(204);
      expect((await admin.post(`${base}/${created.body.id}/complete`)).status).toBe(200);
      return fileKey(org.orgId, issue, created.body.id);
    };
    const backlogFiles = [await upload(inBacklog, 1000), await upload(inBacklog, 2000, { comment_id: comment.id })];
    const sprintFiles = [await upload(inSprint, 3000)];
    const keptFiles = [await upload(kept, 4000)];
    // A pending one counts too, until it goes.
    await declare(admin, `/api/v1/issues/${kept.issue_number}/attachments`, Buffer.alloc(500));
    expect(await organisationBytes(org.orgId)).toBe(10_500);

    const gone = async (files: string[]) => {
      for (const key of files)
        await eventually(
          `${key} removed`,
          () => headObject(key),
          (o) => o === undefined,
        );
    };
    expect((await admin.delete(`/api/v1/projects/${p.id}/issues/${inBacklog.id}`)).status).toBe(204);
    // Kept while the issue is in the trash (docs/trash.md); its purge removes them.
    expect(await organisationBytes(org.orgId)).toBe(10_500);
    expect((await admin.delete(`/api/v1/trash/issue-${inBacklog.id}`)).status).toBe(204);
    await gone(backlogFiles);
    await eventually(
      'bytes after the issue',
      () => organisationBytes(org.orgId),
      (n) => n === 7_500,
    );

    expect((await admin.delete(`/api/v1/projects/${p.id}/sprints/${sprint.id}`)).status).toBe(204);
    // Kept while the sprint is in the trash (docs/trash.md); its purge removes them.
    expect(await headObject(sprintFiles[0]!)).toBeDefined();
    await purgeOnceHeld(admin, `sprint-${sprint.id}`);
    await gone(sprintFiles);
    await eventually(
      'bytes after the sprint',
      () => organisationBytes(org.orgId),
      (n) => n === 4_500,
    );

    expect(await headObject(keptFiles[0]!)).toBeDefined();
    expect((await admin.delete(`/api/v1/projects/${p.id}`)).status).toBe(204);
    await purgeOnceHeld(admin, `project-${p.id}`);
    await gone(keptFiles);
    await eventually(
      'bytes after the project',
      () => organisationBytes(org.orgId),
      (n) => n === 0,
    );
  });

  it('takes nothing from a form posted late: after its attachment is deleted, after its issue is purged, after it was completed, while it is in the trash', async () => {
    const { admin, base, org, issue } = await setup();
    const other = Buffer.from(png);
    other[20] = 1;
    /** A ready attachment removed after the others, whose file's removal says that the consumer has handled their removals (one lane, in order). */
    const barrier = async (onBase: string) => {
      const created = await declare(admin, onBase, png);
      expect((await postForm(created.body.upload, png, 'image/png')).status).toBe(204);
      expect((await admin.post(`${onBase}/${created.body.id}/complete`)).status).toBe(200);
      return created.body.id as number;
    };
    const settled = async (key: string) =>
      eventually(
        `${key} removed`,
        () => headObject(key),
        (o) => o === undefined,
      );

    // Deleted: declared, its form kept, the attachment deleted (pending: for good); the form posted once the cascade is past it.
    const deleted = await declare(admin, base, png);
    const first = await barrier(base);
    expect((await admin.delete(`${base}/${deleted.body.id}`)).status).toBe(204);
    // The barrier, ready, goes into the trash at its delete (its file kept): its purge removes it.
    expect((await admin.delete(`${base}/${first}`)).status).toBe(204);
    expect(await headObject(fileKey(org.orgId, issue, first))).toBeDefined();
    expect((await admin.delete(`/api/v1/trash/attachment-${first}`)).status).toBe(204);
    await settled(fileKey(org.orgId, issue, first));
    expect((await postForm(deleted.body.upload, png, 'image/png')).status).toBe(204);
    expect(await headObject(fileKey(org.orgId, issue, deleted.body.id))).toBeUndefined();
    expect((await admin.post(`${base}/${deleted.body.id}/complete`)).status).toBe(404);

    // Completed: the same form posts another file of the same size and type; the stored file stays the one completed.
    const done = await declare(admin, base, png, { sha256: undefined });
    expect((await postForm(done.body.upload, png, 'image/png')).status).toBe(204);
    expect((await admin.post(`${base}/${done.body.id}/complete`)).status).toBe(200);
    expect((await postForm(done.body.upload, other, 'image/png')).status).toBe(204);
    expect((await admin.post(`${base}/${done.body.id}/complete`)).body.status).toBe('ready');
    /** The completed file as downloaded now. */
    const stored = async () => {
      const listed = ((await admin.get(base)).body as { id: number; download_url: string }[]).find((a) => a.id === done.body.id)!;
      return Buffer.from(await (await fetch(listed.download_url)).arrayBuffer());
    };
    expect((await stored()).equals(png)).toBe(true);

    // In the trash: its form posts another file again, which lands where the form posts only; restored, its file is the one completed.
    expect((await admin.delete(`${base}/${done.body.id}`)).status).toBe(204);
    expect((await postForm(done.body.upload, other, 'image/png')).status).toBe(204);
    expect((await admin.post(`${base}/${done.body.id}/complete`)).status).toBe(404);
    expect((await admin.post(`/api/v1/trash/attachment-${done.body.id}/restore`)).status).toBe(200);
    expect((await stored()).equals(png)).toBe(true);

    // Purged with its issue: a pending attachment of an issue deleted and purged, its form posted after the cascade.
    const doomed = (await admin.post(`/api/v1/projects/${issue.project_id}/issues`, { issue: { title: 'Doomed' } })).body;
    const doomedBase = `/api/v1/issues/${doomed.issue_number}/attachments`;
    const purged = await declare(admin, doomedBase, png);
    const last = await barrier(doomedBase);
    expect((await admin.delete(`/api/v1/projects/${issue.project_id}/issues/${doomed.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/issue-${doomed.id}`)).status).toBe(204);
    await settled(fileKey(org.orgId, doomed, last));
    expect((await postForm(purged.body.upload, png, 'image/png')).status).toBe(204);
    expect(await headObject(fileKey(org.orgId, doomed, purged.body.id))).toBeUndefined();

    // None counts: the organisation holds the one ready file. What the late posts left is removed as the bucket's lifecycle rule removes it.
    await eventually(
      'the bytes of what is left',
      () => organisationBytes(org.orgId),
      (n) => n === png.length,
    );
    expect(await stagedFiles(org.orgId)).toHaveLength(3);
    expect((await sweepLater(org.orgId)).staged).toBe(3);
    expect(await stagedFiles(org.orgId)).toEqual([]);
    expect(await organisationBytes(org.orgId)).toBe(png.length);
    expect((await stored()).equals(png)).toBe(true);
  });
});

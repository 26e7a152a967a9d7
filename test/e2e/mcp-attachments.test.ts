import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpClient, type McpTestClient } from '../support/mcp.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';

/**
 * An attachment read through `/mcp` as an agent reads it (the official MCP client): its
 * `attachment://` resource hands a screenshot back as an image (base64 blob), a log as text, and
 * anything else as JSON with a download link.
 */
const gateway = useGateway();
const clients: McpTestClient[] = [];
afterAll(async () => Promise.all(clients.map((c) => c.close())));

const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 9)]);

/** Declares, uploads (the pre-signed form, a real HTTP POST) and completes a file on `key`. */
async function attach(admin: ApiClient, key: string, name: string, type: string, file: Buffer): Promise<number> {
  const base = `/api/v1/issues/${key}/attachments`;
  const created = (await admin.post(base, { attachment: { name, content_type: type, size: file.length } })).body;
  const form = new FormData();
  for (const [field, value] of Object.entries(created.upload.fields as Record<string, string>)) form.set(field, value);
  form.set('file', new Blob([new Uint8Array(file)], { type }), name);
  expect((await fetch(created.upload.url, { method: 'POST', body: form })).status).toBe(204);
  expect((await admin.post(`${base}/${created.id}/complete`)).status).toBe(200);
  return created.id;
}

/** An organisation with one issue, and an MCP client of its admin. */
async function withIssue(title: string) {
  const { org, admin } = await orgWithClients(gateway);
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const issue = (await admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title } })).body;
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
  clients.push(mcp);
  return { org, admin, p, issue, key: issue.issue_number as string, mcp };
}

describe('attachments over MCP', () => {
  it('hands a screenshot back as an image, a log as text, anything else as a link; another organisation gets nothing', async () => {
    const { admin, key, mcp } = await withIssue('Crash on save');

    const image = await attach(admin, key, 'screenshot.png', 'image/png', png);
    const read = await mcp.client.readResource({ uri: `attachment://${key}/${image}` });
    expect(read.contents).toEqual([{ uri: `attachment://${key}/${image}`, mimeType: 'image/png', blob: png.toString('base64') }]);

    const log = await attach(admin, key, 'app.log', 'text/plain', Buffer.from('ERROR save failed\n'));
    const logContent = await mcp.call('get_attachment', { issue_number: key, attachment_id: log });
    expect(logContent.result.content[0]).toEqual({ type: 'text', text: 'ERROR save failed\n' });
    expect((await mcp.client.readResource({ uri: `attachment://${key}/${log}` })).contents[0]).toMatchObject({
      mimeType: 'text/plain',
      text: 'ERROR save failed\n',
    });

    const zip = await attach(admin, key, 'a.zip', 'application/zip', Buffer.from('PK\u0005\u0006'));
    const linked = (await mcp.client.readResource({ uri: `attachment://${key}/${zip}` })).contents[0] as { text: string };
    const described = JSON.parse(linked.text);
    expect(described).toMatchObject({ id: zip, name: 'a.zip', status: 'ready' });
    expect((await fetch(described.download_url)).status).toBe(200);
    const zipContent = await mcp.call('get_attachment', { issue_number: key, attachment_id: zip });
    expect(zipContent.result.content[0]).toEqual({
      type: 'resource_link',
      uri: `attachment://${key}/${zip}`,
      name: 'a.zip',
      mimeType: 'application/zip',
    });

    const other = await orgWithClients(gateway);
    const stranger = await mcpClient(gateway.baseUrl, other.org.admin.token);
    clients.push(stranger);
    await expect(stranger.client.readResource({ uri: `attachment://${key}/${image}` })).rejects.toThrow(/not found/);
    expect(await stranger.error('get_attachment', { issue_number: key, attachment_id: image })).toMatch(/not found/);
    expect(await mcp.error('get_attachment', { issue_number: key, attachment_id: 999_999 })).toBe('Attachment not found');
  });

  it('attaches a screenshot given inline (add_attachment) and hands the same bytes back as an image', async () => {
    const { org, admin, p, issue, key, mcp } = await withIssue('Crash on save');
    const comment = (await admin.post(`/api/v1/projects/${p.id}/issues/${issue.id}/comments`, { comment: { body: 'See it' } }))
      .body;
    const shot = Buffer.concat([png, randomBytes(4096)]);

    const { attachment } = await mcp.ok('add_attachment', {
      issue_number: key,
      name: 'screenshot.png',
      content_type: 'image/png',
      data: shot.toString('base64'),
      comment_id: comment.id,
    });
    expect(attachment).toMatchObject({
      name: 'screenshot.png',
      content_type: 'image/png',
      size: shot.length,
      sha256: createHash('sha256').update(shot).digest('hex'),
      status: 'ready',
      comment_id: comment.id,
      uploader_id: org.admin.id,
    });
    // The round trip: the agent reads back, as image content, the very bytes it sent (get_attachment),
    // with the attachment as JSON after it; and so does a client that reads resources.
    const got = await mcp.call('get_attachment', { issue_number: key.toLowerCase(), attachment_id: attachment.id });
    expect(got.result.isError).toBeFalsy();
    expect(got.result.content[0]).toEqual({ type: 'image', data: shot.toString('base64'), mimeType: 'image/png' });
    expect(JSON.parse((got.result.content[1] as { text: string }).text)).toEqual(got.result.structuredContent);
    expect(got.result.structuredContent).toMatchObject({ attachment: { id: attachment.id, status: 'ready' } });
    const read = await mcp.client.readResource({ uri: `attachment://${key}/${attachment.id}` });
    expect(read.contents).toEqual([
      { uri: `attachment://${key}/${attachment.id}`, mimeType: 'image/png', blob: shot.toString('base64') },
    ]);
    // And the REST API and the bucket agree.
    const listed = (await admin.get(`/api/v1/issues/${key}/attachments`)).body;
    expect(listed).toEqual([expect.objectContaining({ id: attachment.id, status: 'ready', size: shot.length })]);
    const downloaded = await fetch(listed[0].download_url);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(shot)).toBe(true);
  });

  it('answers a larger file an upload form, and completes it on a second call with its attachment_id', async () => {
    const { key, mcp } = await withIssue('Slow export');
    const log = Buffer.from('GET /export 200 31s\n'.repeat(2000));

    const declared = await mcp.ok('add_attachment', {
      issue_number: key,
      name: 'trace.log',
      content_type: 'text/plain',
      size: log.length,
    });
    expect(declared.attachment).toMatchObject({ status: 'pending', size: log.length, download_url: null });
    expect(await mcp.error('add_attachment', { issue_number: key, attachment_id: declared.attachment.id })).toMatch(
      /has not been uploaded yet/,
    );
    const form = new FormData();
    for (const [field, value] of Object.entries(declared.upload.fields as Record<string, string>)) form.set(field, value);
    form.set('file', new Blob([new Uint8Array(log)], { type: 'text/plain' }), 'trace.log');
    expect((await fetch(declared.upload.url, { method: 'POST', body: form })).status).toBe(204);

    const done = await mcp.ok('add_attachment', { issue_number: key, attachment_id: declared.attachment.id });
    expect(done.attachment).toMatchObject({ id: declared.attachment.id, status: 'ready' });
    expect(done.upload).toBeUndefined();
    const read = await mcp.client.readResource({ uri: `attachment://${key}/${declared.attachment.id}` });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/plain', text: log.toString() });
  });

  it("refuses what is not a file it can keep, with the REST API's reasons, and leaves nothing behind", async () => {
    const { org, admin, key, mcp } = await withIssue('Crash');
    const file = { issue_number: key, name: 'a.png', content_type: 'image/png' };

    expect(await mcp.error('add_attachment', { ...file, data: 'not base64!' })).toMatch(/data must be the file in base64/);
    expect(await mcp.error('add_attachment', { ...file, data: png.toString('base64'), size: 3 })).toMatch(
      new RegExp(`size: data has ${png.length} bytes, not the 3 given`),
    );
    expect(await mcp.error('add_attachment', { ...file, content_type: 'application/x-msdownload', data: 'TVo=' })).toMatch(
      /content_type must be one of image\/png/,
    );
    expect(await mcp.error('add_attachment', { ...file, name: '../a.png', data: 'TVo=' })).toMatch(/name must be a file name/);
    expect(await mcp.error('add_attachment', { ...file, data: '' })).toMatch(/size must be at least 1 byte/);
    expect(await mcp.error('add_attachment', { ...file })).toMatch(/size must be a number of bytes/);
    expect(await mcp.error('add_attachment', { issue_number: key, attachment_id: 1, name: 'a.png' })).toMatch(
      /attachment_id completes an upload/,
    );
    expect(await mcp.error('add_attachment', { ...file, data: 'TVo=', comment_id: 999999 })).toMatch(/Comment 999999/);
    // Over the request's 1 MiB: refused before any tool runs.
    await expect(mcp.call('add_attachment', { ...file, data: 'A'.repeat(1_100_000) })).rejects.toThrow();
    // Another organisation's issue is not found, and its token writes nothing there.
    const other = await orgWithClients(gateway);
    const stranger = await mcpClient(gateway.baseUrl, other.org.admin.token);
    clients.push(stranger);
    expect(await stranger.error('add_attachment', { ...file, data: 'TVo=' })).toMatch(new RegExp(`Issue ${key} not found`));
    expect((await admin.get(`/api/v1/issues/${key}/attachments`)).body).toEqual([]);
    // A read-only connection may not attach.
    const readOnly = await mcpClient(gateway.baseUrl, org.admin.token, '?read_only=true');
    clients.push(readOnly);
    expect((await readOnly.call('add_attachment', { ...file, data: 'TVo=' })).result.isError).toBe(true);
  });
});

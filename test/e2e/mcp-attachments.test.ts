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

describe('attachments over MCP', () => {
  it('hands a screenshot back as an image, a log as text, anything else as a link; another organisation gets nothing', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const p = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
    const key = (await admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title: 'Crash on save' } })).body.issue_number;
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    clients.push(mcp);

    const image = await attach(admin, key, 'screenshot.png', 'image/png', png);
    const read = await mcp.client.readResource({ uri: `attachment://${key}/${image}` });
    expect(read.contents).toEqual([{ uri: `attachment://${key}/${image}`, mimeType: 'image/png', blob: png.toString('base64') }]);

    const log = await attach(admin, key, 'app.log', 'text/plain', Buffer.from('ERROR save failed\n'));
    expect((await mcp.client.readResource({ uri: `attachment://${key}/${log}` })).contents[0]).toMatchObject({
      mimeType: 'text/plain',
      text: 'ERROR save failed\n',
    });

    const zip = await attach(admin, key, 'a.zip', 'application/zip', Buffer.from('PK\u0005\u0006'));
    const linked = (await mcp.client.readResource({ uri: `attachment://${key}/${zip}` })).contents[0] as { text: string };
    const described = JSON.parse(linked.text);
    expect(described).toMatchObject({ id: zip, name: 'a.zip', status: 'ready' });
    expect((await fetch(described.download_url)).status).toBe(200);

    const other = await orgWithClients(gateway);
    const stranger = await mcpClient(gateway.baseUrl, other.org.admin.token);
    clients.push(stranger);
    await expect(stranger.client.readResource({ uri: `attachment://${key}/${image}` })).rejects.toThrow(/not found/);
  });
});

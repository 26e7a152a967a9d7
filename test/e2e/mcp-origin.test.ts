import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { newOrganisation, useGateway } from '../support/api.ts';

/**
 * `/mcp` against DNS rebinding (MCP Streamable HTTP, security): a present, foreign `Origin` is 403,
 * a missing one passes; where the deployment names its hosts, a foreign `Host` is 403. Configured
 * here as `npm start` configures it, before the handlers first read their configuration.
 */
const saved = { MCP_ALLOWED_ORIGINS: process.env.MCP_ALLOWED_ORIGINS, MCP_ALLOWED_HOSTS: process.env.MCP_ALLOWED_HOSTS };
process.env.MCP_ALLOWED_ORIGINS = 'http://localhost:6274';
process.env.MCP_ALLOWED_HOSTS = 'localhost:3999';
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const gateway = useGateway();
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

/** A request to the local gateway with exactly these headers (`Host` included, which fetch cannot forge). */
function send(method: string, headers: Record<string, string>, body?: unknown) {
  const url = new URL('/mcp', gateway.baseUrl);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: url.port, path: url.pathname, method, headers: { Host: url.host, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const jsonRpc = (token: string) => ({
  Authorization: `Bearer ${token}`,
  Accept: 'application/json, text/event-stream',
  'Content-Type': 'application/json',
});

describe('/mcp and where a request comes from', () => {
  it('refuses a foreign Origin with 403 JSON, and lets a missing, its own or a configured one through', async () => {
    const { admin } = await newOrganisation();
    const foreign = await send('POST', { ...jsonRpc(admin.token), Origin: 'http://evil.example.com' }, initialize);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({
      error: expect.stringMatching(/^Origin http:\/\/evil\.example\.com may not call this MCP server/),
    });
    for (const origin of [undefined, gateway.baseUrl, 'http://localhost:6274']) {
      const res = await send('POST', { ...jsonRpc(admin.token), ...(origin ? { Origin: origin } : {}) }, initialize);
      expect(res.status, origin).toBe(200);
      expect(res.body.result.serverInfo.name).toBe('sprint-ticketing');
    }
    // Before anything else /mcp answers: GET and DELETE too.
    for (const method of ['GET', 'DELETE']) {
      expect((await send(method, { Authorization: `Bearer ${admin.token}`, Origin: 'http://evil.example.com' })).status).toBe(
        403,
      );
      expect((await send(method, { Authorization: `Bearer ${admin.token}` })).status).toBe(405);
    }
  });

  it('refuses a Host the deployment does not name (a rebound name), and answers the ones it names', async () => {
    const { admin } = await newOrganisation();
    const rebound = await send(
      'POST',
      { ...jsonRpc(admin.token), Host: 'evil.example.com:3000', Origin: 'http://evil.example.com:3000' },
      initialize,
    );
    expect(rebound.status).toBe(403);
    expect(rebound.body).toEqual({
      error: expect.stringMatching(/^Host evil\.example\.com:3000 is not one this MCP server answers to/),
    });
    const noOrigin = await send('POST', { ...jsonRpc(admin.token), Host: 'evil.example.com' }, initialize);
    expect(noOrigin.status).toBe(403);
    expect((await send('POST', { ...jsonRpc(admin.token), Host: 'localhost:3999' }, initialize)).status).toBe(200);
  });

  it('advertises no list that announces its changes: a stateless server has no stream to announce them on', async () => {
    const { admin } = await newOrganisation();
    const res = await send('POST', jsonRpc(admin.token), initialize);
    expect(res.status).toBe(200);
    const { capabilities } = res.body.result as { capabilities: Record<string, Record<string, unknown>> };
    expect(Object.keys(capabilities).sort()).toEqual(['prompts', 'resources', 'tools']);
    for (const list of ['tools', 'resources', 'prompts']) {
      expect(capabilities[list], list).toEqual({ listChanged: false });
    }
  });
});

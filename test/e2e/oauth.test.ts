import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import http from 'node:http';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { freePort } from '../../tools/local/dynamodb.ts';
import { apiClient, newOrganisation, randomPrefix } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { npmStart, READY, type Service, stop } from '../support/npm-start.ts';
import { answerInBrowser, startCallbackReceiver, TestOAuthProvider } from '../support/oauth.ts';

/**
 * OAuth 2.1 for `/mcp` end to end, as an AI assistant connects: the MCP SDK's own client-side
 * OAuth (discovery from the 401, dynamic registration, PKCE, token, refresh) against `npm start`,
 * the person approving on the authorization page in headless Chromium, the redirect landing on a
 * loopback receiver of this test.
 */
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let service: Service | undefined;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>> | undefined;
let base: string;

beforeAll(async () => {
  browser = await launchChromium();
  receiver = await startCallbackReceiver();
  service = npmStart({
    PORT: String(await freePort()),
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TABLE_NAME: inject('tableName'),
  });
  // The address npm start prints, which it names itself by (PUBLIC_URL): the issuer the SDK checks.
  base = (await service.waitFor(READY))[1]!;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  if (service) await stop(service);
});

/** An organisation with a project, as the person who connects their assistant sees it. */
async function organisation(projectName: string) {
  const org = await newOrganisation();
  const admin = apiClient(base, org.admin.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: projectName, prefix: randomPrefix() } })).body;
  return { org, admin, project: project as { id: number; name: string } };
}

/**
 * Connects the SDK client the way an assistant does: the first request is refused (401), the SDK
 * discovers, registers and sends the person to approve; the test approves in Chromium, hands the
 * code back (`finishAuth`) and connects again.
 */
async function connect(provider: TestOAuthProvider, approval: { token: string; keep?: string[] }) {
  const url = new URL(`${base}/mcp`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(new Client({ name: 'assistant', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl, 'the SDK sent the person to the authorization page').toBeDefined();
  const callback = receiver!.next();
  const page = await answerInBrowser(browser!.context, provider.authorizationUrl!, approval);
  const query = await callback;
  expect(query.get('state')).toBe('state-123');
  expect(query.get('iss')).toBe(base);
  await first.finishAuth(query.get('code')!);
  const client = new Client({ name: 'assistant', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, page };
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : '');

/** A raw `/mcp` request with a bearer token: its status and `WWW-Authenticate`. */
async function rawMcp(token: string) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  token: null,
});

describe('OAuth 2.1 for /mcp, through the MCP SDK and a browser', () => {
  it('discovers, registers, is approved read-only in the browser, and is refused write and delete tools with the MCP error', async () => {
    const mine = await organisation('Mine');
    const theirs = await organisation('Theirs');
    const provider = new TestOAuthProvider(receiver!.url, 'Read <Only> & Co');

    const { client, page } = await connect(provider, { token: mine.org.admin.token, keep: ['read'] });

    // The page showed the client's name (escaped, rendered as text) and the three scopes asked.
    expect(page.status).toBe(200);
    expect(page.clientName).toBe('Read <Only> & Co');
    expect(page.offered).toEqual(['read', 'write', 'delete']);
    expect(provider.stored?.scope).toBe('read');
    expect(provider.stored?.access_token).toMatch(/^stk_oat_/);
    expect(provider.stored?.expires_in).toBe(3600);

    // A read-only connection is offered the read tools only.
    const offered = (await client.listTools()).tools;
    expect(offered.length).toBeGreaterThan(5);
    expect(offered.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);

    // Reads: the organisation's own data, never another's.
    const listed = await call(client, 'get_workspace');
    expect(listed.isError).toBeFalsy();
    const names = (listed.structuredContent as { projects: { name: string }[] }).projects.map((p) => p.name);
    expect(names).toEqual(['Mine']);
    // Ids are per organisation: the other's second project's id names nothing here.
    const second = (await theirs.admin.post('/api/v1/projects', { project: { name: 'Theirs too', prefix: randomPrefix() } }))
      .body;
    const other = await call(client, 'get_project', { project_id: second.id });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/not found/i);
    expect(text(await call(client, 'get_project', { project_id: theirs.project.id }))).not.toMatch(/Theirs/);

    // A write tool and a delete tool: the MCP error (isError), nothing written.
    const write = await call(client, 'update_project', { project_id: mine.project.id, description: 'changed' });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/"write" scope/);
    const remove = await call(client, 'delete_project', { project_id: mine.project.id });
    expect(remove.isError).toBe(true);
    expect(text(remove)).toMatch(/"delete" scope/);
    expect((await mine.admin.get(`/api/v1/projects/${mine.project.id}`)).body.description ?? null).toBeNull();

    // The access token opens /mcp only; the API token still opens /mcp as before.
    const rest = await apiClient(base, provider.stored!.access_token).get('/api/v1/projects');
    expect(rest.status).toBe(401);
    expect((await rawMcp(mine.org.admin.token)).status).toBe(200);
    await client.close();
  }, 60_000);

  it('refreshes with rotation: the old pair stops working, a replayed refresh token revokes the grant', async () => {
    const mine = await organisation('Rotating');
    const provider = new TestOAuthProvider(receiver!.url);
    const { client } = await connect(provider, { token: mine.org.admin.token });
    expect(provider.stored?.scope).toBe('read write delete');
    // Every scope: every tool, as an API token that opts in to delete tools sees them.
    const all = (await client.listTools()).tools.map((t) => t.name);
    const byToken = new Client({ name: 'script', version: '1' });
    await byToken.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp?delete=true`), {
        requestInit: { headers: { Authorization: `Bearer ${mine.org.admin.token}` } },
      }),
    );
    expect(all).toEqual((await byToken.listTools()).tools.map((t) => t.name));
    expect(all).toContain('delete_project');
    await byToken.close();
    const first = provider.stored!;

    // The SDK's own refresh (auth() with a refresh token held).
    expect(await auth(provider, { serverUrl: new URL(`${base}/mcp`) })).toBe('AUTHORIZED');
    const second = provider.stored!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await rawMcp(first.access_token)).status).toBe(401);
    expect((await rawMcp(second.access_token)).status).toBe(200);

    // The first refresh token again: refused, and the whole grant with it.
    const anon = apiClient(base);
    const replay = await anon.post('/oauth/token', undefined, {
      ...form({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await rawMcp(second.access_token)).status).toBe(401);
    const afterwards = await anon.post('/oauth/token', undefined, {
      ...form({ grant_type: 'refresh_token', refresh_token: second.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(afterwards.body.error).toBe('invalid_grant');
    await client.close();
  }, 60_000);

  it('writes with the write scope; revocation and expiry end the token (401 pointing at the metadata)', async () => {
    const mine = await organisation('Writable');
    const provider = new TestOAuthProvider(receiver!.url);
    const { client } = await connect(provider, { token: mine.org.member.token, keep: ['read', 'write'] });
    const offered = (await client.listTools()).tools;
    expect(offered.some((t) => t.name === 'update_project')).toBe(true);
    expect(offered.filter((t) => t.annotations?.destructiveHint === true)).toEqual([]);
    const updated = await call(client, 'update_project', { project_id: mine.project.id, description: 'by the assistant' });
    expect(updated.isError).toBeFalsy();
    expect((await mine.admin.get(`/api/v1/projects/${mine.project.id}`)).body.description).toBe('by the assistant');
    await client.close();

    // Revoked (RFC 7009, by its refresh token): both tokens end.
    const tokens = provider.stored!;
    const revoked = await apiClient(base).post('/oauth/revoke', undefined, {
      ...form({ token: tokens.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const refused = await rawMcp(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);

    // Another grant, expired: refused though still stored.
    await connect(provider, { token: mine.org.member.token, keep: ['read'] }).then(({ client }) => client.close());
    const access = provider.stored!.access_token;
    expect((await rawMcp(access)).status).toBe(200);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(hashToken(access)),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect((await rawMcp(access)).status).toBe(401);
  }, 90_000);

  it('sends a denial back to the client as access_denied, and a wrong API token back to the page', async () => {
    const mine = await organisation('Denied');
    const provider = new TestOAuthProvider(receiver!.url);
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'a', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    const before = receiver!.received.length;
    const wrong = await answerInBrowser(browser!.context, provider.authorizationUrl!, { token: 'stk_' + 'x'.repeat(43) });
    expect(wrong.alert).toMatch(/unknown or revoked/);
    expect(receiver!.received.length, 'nothing went back to the client').toBe(before);

    const callback = receiver!.next();
    await answerInBrowser(browser!.context, provider.authorizationUrl!, { token: mine.org.admin.token, decision: 'deny' });
    const query = await callback;
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('code')).toBeNull();
    expect(query.get('state')).toBe('state-123');
  }, 60_000);

  it('answers a forged Host with the same discovery documents, and refuses it on /mcp (a rebound name)', async () => {
    const mine = await organisation('Rebound');
    const { port } = new URL(base);
    const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const honest = await send('GET', '/.well-known/oauth-authorization-server', { Host: `localhost:${port}` });
    const forged = await send('GET', '/.well-known/oauth-authorization-server', { Host: 'evil.example.com' });
    expect(forged.status).toBe(200);
    expect(forged.text).toBe(honest.text);
    expect(JSON.parse(honest.text).issuer).toBe(base);

    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    });
    const headers = {
      Authorization: `Bearer ${mine.org.admin.token}`,
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
    };
    expect((await send('POST', '/mcp', { ...headers, Host: `evil.example.com:${port}` }, initialize)).status).toBe(403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await send('POST', '/mcp', { ...headers, Host: host }, initialize)).status, host).toBe(200);
    }
  }, 60_000);
});

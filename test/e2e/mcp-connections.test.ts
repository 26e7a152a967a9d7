import { describe, expect, it } from 'vitest';
import { fetchOnce, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';
import { authorizeOverHttp, postForm, registerOAuthClient } from '../support/oauth.ts';

const gateway = useGateway();

const names = async (mcp: Awaited<ReturnType<typeof mcpClient>>) => (await mcp.client.listTools()).tools.map((t) => t.name);
const isRead = (name: string) => /^(list|get|my|search)_/.test(name);

/**
 * An OAuth access token of `token`'s account with `scope`, obtained over plain HTTP (once more if
 * a pooled connection was reset under it: each attempt registers its own client).
 */
async function oauthToken(token: string, scope: string): Promise<string> {
  try {
    return await oauthTokenOnce(token, scope);
  } catch (err) {
    if (!String((err as Error).cause ?? err).includes('ECONNRESET')) throw err;
    return oauthTokenOnce(token, scope);
  }
}

async function oauthTokenOnce(token: string, scope: string): Promise<string> {
  const client = await registerOAuthClient(gateway.baseUrl);
  const { code, verifier } = await authorizeOverHttp(gateway.baseUrl, client, { token, scope });
  const tokens = await postForm(gateway.baseUrl, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code: code!,
    code_verifier: verifier,
  });
  expect(tokens.status).toBe(200);
  return tokens.body.access_token as string;
}

describe('MCP: the tools offered follow the connection and the role', () => {
  it('an API token: read and write tools; delete tools only with ?delete=true; admin-only tools only to admins', async () => {
    const org = await newOrganisation();
    const admin = await mcpClient(gateway.baseUrl, org.admin.token);
    const adminAll = await mcpClient(gateway.baseUrl, org.admin.token, '?delete=true');
    const member = await mcpClient(gateway.baseUrl, org.member.token);
    const memberAll = await mcpClient(gateway.baseUrl, org.member.token, '?delete=true');

    const everything = await names(adminAll);
    expect(everything).toEqual(expect.arrayContaining(['delete_project', 'delete_sprint', 'delete_issue', 'create_issue']));
    const deletes = everything.filter((n) => n.startsWith('delete_'));
    expect(await names(admin)).toEqual(everything.filter((n) => !deletes.includes(n)));
    // A member is never offered what only admins may do, even when asking for delete tools.
    expect(await names(memberAll)).toEqual(everything.filter((n) => n !== 'delete_project' && n !== 'delete_sprint'));
    expect(await names(memberAll)).toContain('delete_issue');
    expect(await names(member)).toEqual(await names(admin));

    // Not listed is not refused for a token: the role decides, as on the REST API.
    const { project } = await admin.ok('create_project', { name: 'Kept', prefix: randomPrefix() });
    expect(await member.error('delete_project', { project_id: project.id })).toBe('Only admins may delete projects');
    expect(await admin.ok('delete_project', { project_id: project.id })).toEqual({ deleted: true, project_id: project.id });
    for (const c of [admin, adminAll, member, memberAll]) await c.close();
  });

  it('?read_only=true: only read tools, and a write tool is refused with the MCP tool error', async () => {
    const org = await newOrganisation();
    for (const query of ['?read_only=true', '?read_only=true&delete=true']) {
      const readOnly = await mcpClient(gateway.baseUrl, org.admin.token, query);
      const listed = await names(readOnly);
      expect(listed.length).toBeGreaterThan(10);
      expect(listed.every(isRead), listed.join()).toBe(true);
      expect(listed).toContain('get_workspace');
      expect(await readOnly.error('create_project', { name: 'No', prefix: randomPrefix() })).toBe(
        'This connection is read-only (read_only=true)',
      );
      expect((await readOnly.ok('get_workspace')).projects).toEqual([]);
      await readOnly.close();
    }
    // A flag that is not true or false is refused before any MCP processing.
    const res = await fetchOnce(`${gateway.baseUrl}/mcp?read_only=yes`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${org.admin.token}`,
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ errors: ['read_only must be true or false'] });
    // An unknown flag too (strict query).
    const unknown = await fetchOnce(`${gateway.baseUrl}/mcp?readonly=true`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${org.admin.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(422);
  });

  it('an OAuth connection: its scopes decide what is listed; read_only narrows them; a role still filters', async () => {
    const org = await newOrganisation();
    const all = await names(await mcpClient(gateway.baseUrl, org.admin.token, '?delete=true'));
    const cases: { token: string; scope: string; query?: string; expected: (n: string) => boolean }[] = [
      { token: org.admin.token, scope: 'read', expected: isRead },
      { token: org.admin.token, scope: 'read write', expected: (n) => !n.startsWith('delete_') },
      { token: org.admin.token, scope: 'read write delete', expected: () => true },
      { token: org.admin.token, scope: 'read write delete', query: '?read_only=true', expected: isRead },
      {
        token: org.member.token,
        scope: 'read write delete',
        expected: (n) => n !== 'delete_project' && n !== 'delete_sprint',
      },
    ];
    for (const c of cases) {
      const mcp = await mcpClient(gateway.baseUrl, await oauthToken(c.token, c.scope), c.query ?? '');
      expect(await names(mcp), `${c.scope} ${c.query ?? ''}`).toEqual(all.filter(c.expected));
      await mcp.close();
    }
    // read_only on an OAuth connection is enforced too, with its own message.
    const narrowed = await mcpClient(gateway.baseUrl, await oauthToken(org.admin.token, 'read write'), '?read_only=true');
    expect(await narrowed.error('create_project', { name: 'No', prefix: randomPrefix() })).toBe(
      'This connection is read-only (read_only=true)',
    );
    const readScope = await mcpClient(gateway.baseUrl, await oauthToken(org.admin.token, 'read'));
    expect(await readScope.error('create_project', { name: 'No', prefix: randomPrefix() })).toBe(
      'This connection was not granted the "write" scope; connect again and approve it',
    );
    await narrowed.close();
    await readScope.close();
  });
});

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { apiClient, fetchOnce, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

const gateway = useGateway();
/** Bytes of the largest tools/list answer (every tool, every argument). */
const LIST_BUDGET = 16 * 1024;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};
const mcpHeaders = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

async function orgWithMcp(query = '') {
  const org = await newOrganisation();
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token, query);
  return { org, mcp, rest: apiClient(gateway.baseUrl, org.admin.token) };
}

describe('MCP server: protocol and authentication', () => {
  it('lets the official client connect with a bearer token and lists tools that all carry annotations and schemas', async () => {
    const { mcp } = await orgWithMcp('?delete=true');
    const info = mcp.client.getServerVersion();
    expect(info?.name).toBe('sprint-ticketing');
    expect(mcp.client.getInstructions()).toContain('backlog');
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name);
    expect([...names].sort()).toEqual(
      [
        ...['get_workspace'],
        ...['get_project', 'create_project', 'update_project', 'delete_project'],
        ...['list_sprints', 'get_sprint', 'get_sprint_summary', 'create_sprint', 'update_sprint'],
        ...['activate_sprint', 'complete_sprint', 'delete_sprint', 'get_sprint_report', 'get_velocity', 'get_burndown'],
        ...['list_issues', 'my_issues', 'get_issue', 'create_issue', 'update_issue', 'move_issue', 'delete_issue'],
        ...['get_issue_activity', 'create_issues', 'update_issues'],
        ...['list_sub_issues', 'list_labels', 'create_label', 'search_issues'],
        ...['list_comments', 'add_comment', 'edit_comment', 'delete_comment'],
        ...['list_relations', 'add_relation', 'delete_relation'],
        ...['add_attachment', 'get_attachment', 'list_accounts'],
        ...['list_trash', 'restore', 'revert_change'],
        ...['get_inbox', 'mark_read'],
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      // The hints as a client reads them, the protocol's defaults filling in those left out.
      const hints = {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
        ...tool.annotations,
      };
      expect(hints.openWorldHint, tool.name).toBe(false);
      // Reads never write; among writes, only deletes may destroy, and only creates are not idempotent.
      const reads = /^(list|get|my|search)_/.test(tool.name);
      expect(hints.readOnlyHint, tool.name).toBe(reads);
      if (!reads) {
        expect(hints.destructiveHint, tool.name).toBe(tool.name.startsWith('delete_'));
        expect(hints.idempotentHint, tool.name).toBe(!/^(create|add)_/.test(tool.name));
      }
    }
    expect(mcp.statuses.every((s) => s === 200 || s === 202 || s === 405)).toBe(true);
    await mcp.close();
  });

  it('lists every tool in under 16 KB, with one- or two-sentence descriptions and no output schemas', async () => {
    const { mcp } = await orgWithMcp('?delete=true');
    const { tools } = await mcp.client.listTools();
    // The very bytes of the tools/list answer: an agent pays them in every conversation.
    const listBytes = mcp.bodyBytes.at(-1)!;
    expect(listBytes).toBeGreaterThan(JSON.stringify(tools).length);
    // Every tool, for an admin that opted in to delete tools: the largest list any connection sees.
    expect(listBytes).toBeLessThan(LIST_BUDGET);
    for (const tool of tools) {
      expect(tool.description!.split(/(?<=[.!?])\s+/).length, tool.name).toBeLessThanOrEqual(2);
      expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/\$schema|\$ref|9007199254740991/);
    }
    await mcp.close();
  });

  it('answers 401 before any MCP processing without a token or with a bad one', async () => {
    for (const headers of [{}, { Authorization: 'Bearer stk_not-a-real-token' }, { Authorization: 'Basic abc' }]) {
      const res = await fetchOnce(`${gateway.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...mcpHeaders, ...headers },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
    const client = mcpClient(gateway.baseUrl, 'stk_not-a-real-token');
    await expect(client).rejects.toThrow();
  });

  it('accepts the token as X-API-Token too, and answers a plain JSON response (no stream, no session)', async () => {
    const { org } = await orgWithMcp();
    const res = await fetchOnce(`${gateway.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, 'X-API-Token': org.member.token },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'sprint-ticketing' } } });
    expect(Number(res.headers.get('x-db-calls'))).toBeLessThanOrEqual(2);
  });

  it('answers GET and DELETE with 405 JSON (a stateless server has no stream and no session)', async () => {
    const { org } = await orgWithMcp();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetchOnce(`${gateway.baseUrl}/mcp`, {
        method,
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${org.admin.token}` },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ error: expect.stringContaining('POST') });
    }
    const anonymous = await fetchOnce(`${gateway.baseUrl}/mcp`, { method: 'GET', headers: { Accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
  });

  it('refuses JSON-RPC batches, so that every tool call counts against the rate limit', async () => {
    const { org } = await orgWithMcp();
    const res = await fetchOnce(`${gateway.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, Authorization: `Bearer ${org.admin.token}` },
      body: JSON.stringify([initialize, { ...initialize, id: 2 }]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.stringContaining('one JSON-RPC message per request') });
  });

  it("answers the transport's refusals with the service's {error} body", async () => {
    const { org } = await orgWithMcp();
    const post = (headers: Record<string, string>, body: string) =>
      fetchOnce(`${gateway.baseUrl}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${org.admin.token}`, ...headers },
        body,
      });
    const cases = [
      { status: 406, res: await post({ ...mcpHeaders, Accept: 'application/json' }, JSON.stringify(initialize)) },
      { status: 415, res: await post({ ...mcpHeaders, 'Content-Type': 'text/plain' }, JSON.stringify(initialize)) },
      {
        status: 415,
        res: await post({ ...mcpHeaders, 'Content-Type': 'application/json; charset=iso-8859-1' }, JSON.stringify(initialize)),
        error: "Content-Type charset must be utf-8 (got 'iso-8859-1'): send the body in UTF-8, with charset=utf-8 or no charset",
      },
      { status: 400, res: await post(mcpHeaders, '{"jsonrpc": "2.0", ') },
      { status: 400, res: await post(mcpHeaders, JSON.stringify({ hello: 'world' })) },
    ];
    for (const { status, res, error } of cases as { status: number; res: Response; error?: string }[]) {
      expect(res.status).toBe(status);
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
      expect(await res.json()).toEqual({ error: error ?? expect.any(String) });
    }
  });

  it('applies the same per-token rate limit: 429 with Retry-After once the bucket is empty', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    await mcp.ok('get_workspace');
    // Empty the admin token's bucket for the next 30 s (as 600 quick requests would).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(hashToken(org.admin.token)),
        UpdateExpression: 'SET tat = :tat',
        ExpressionAttributeValues: { ':tat': Date.now() + 90_000 },
      }),
    );
    const res = await fetchOnce(`${gateway.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, Authorization: `Bearer ${org.admin.token}` },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await res.json()).toEqual({ error: expect.any(String) });
    const viaClient = await mcp.call('get_workspace').catch((err: Error) => err);
    expect(viaClient).toBeInstanceOf(Error);
    expect((await rest.get('/api/v1/me')).status).toBe(429);
    // Another token of the organisation is not affected.
    const other = await mcpClient(gateway.baseUrl, org.member.token);
    await other.ok('get_workspace');
    await other.close();
  });
});

describe('MCP server: project tools', () => {
  it('creates, reads, lists and updates projects, and the REST API shows the same', async () => {
    const { mcp, rest } = await orgWithMcp();
    const prefix = randomPrefix();
    const created = await mcp.call('create_project', { name: '  Apollo ', prefix, description: 'Moon' });
    expect(created.result.isError).toBeFalsy();
    const { project } = created.result.structuredContent as { project: { id: number } };
    expect(project).toMatchObject({ name: 'Apollo', prefix, description: 'Moon', sprints_count: 0 });
    expect(JSON.parse(created.text)).toEqual(created.result.structuredContent);
    expect(created.dbCalls).toBeLessThanOrEqual(4);

    const viaRest = await rest.get(`/api/v1/projects/${project.id}`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual(project);

    const got = await mcp.call('get_project', { project_id: project.id });
    // with its version, the one the REST API's ETag carries
    expect(got.result.structuredContent).toEqual({ project: viaRest.body, version: expect.any(Number) });
    expect(viaRest.headers.get('etag')).toMatch(
      new RegExp(`^"${(got.result.structuredContent as { version: number }).version}-`),
    );
    expect(got.dbCalls).toBeLessThanOrEqual(3);

    const updated = await mcp.ok('update_project', {
      project_id: project.id,
      name: 'Artemis',
      documentation_url: 'https://docs.example.com',
    });
    expect(updated.project).toMatchObject({
      id: project.id,
      name: 'Artemis',
      description: 'Moon',
      documentation_url: 'https://docs.example.com',
    });
    expect((await rest.get(`/api/v1/projects/${project.id}`)).body.name).toBe('Artemis');

    // A list tool's pages (list_labels as every list tool): limit, next_cursor, total.
    for (const name of ['Artemis', 'Second', 'Third']) await mcp.ok('create_label', { project_id: project.id, name });
    const at = { project_id: project.id };
    const first = await mcp.call('list_labels', { ...at, limit: 2 });
    expect(first.dbCalls).toBeLessThanOrEqual(3);
    const page1 = first.result.structuredContent as { labels: { name: string }[]; total: number; next_cursor: string | null };
    expect(page1.total).toBe(3);
    expect(page1.labels.map((p) => p.name)).toEqual(['Artemis', 'Second']);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const page2 = await mcp.ok('list_labels', { ...at, limit: 2, cursor: page1.next_cursor });
    expect(page2).toMatchObject({ total: 3, next_cursor: null });
    expect(page2.labels.map((p: { name: string }) => p.name)).toEqual(['Third']);
    // Exactly at the end: no cursor to an empty page.
    expect((await mcp.ok('list_labels', { ...at, limit: 3 })).next_cursor).toBeNull();
    expect(await mcp.error('list_labels', { ...at, cursor: 'garbage' })).toBe(
      'Validation failed: cursor is not valid for this collection',
    );
    await mcp.close();
  });

  it('searches the whole organisation with search_issues, as GET /api/v1/issues?q= answers', async () => {
    const { mcp, rest, org } = await orgWithMcp();
    const ids: number[] = [];
    for (const prefix of [randomPrefix(), randomPrefix()]) {
      const project = (await rest.post('/api/v1/projects', { project: { name: 'Search', prefix } })).body;
      for (const [title, assignee] of [
        ['Login bug', org.admin.id],
        ['Login copy', null],
        ['Billing', org.admin.id],
      ] as const) {
        const issue = await rest.post(`/api/v1/projects/${project.id}/issues`, {
          issue: { title, assignee_id: assignee, type: 'bug' },
        });
        ids.push(issue.body.id);
      }
    }
    const q = 'login assignee:@me is:open';
    const first = await mcp.call('search_issues', { q, limit: 1 });
    expect(first.result.isError).toBeFalsy();
    const page1 = first.result.structuredContent as { issues: { id: number; title: string }[]; next_cursor: string | null };
    expect(page1.issues.map((i) => i.title)).toEqual(['Login bug']);
    const page2 = await mcp.ok('search_issues', { q, limit: 1, cursor: page1.next_cursor });
    const viaRest = (await rest.get(`/api/v1/issues?q=${encodeURIComponent(q)}`)).body.map((i: { id: number }) => i.id);
    expect([...page1.issues, ...page2.issues].map((i: { id: number }) => i.id)).toEqual(viaRest);
    expect(viaRest).toHaveLength(2);
    expect(page2.next_cursor).toBeNull();
    expect(await mcp.error('search_issues', { q: 'is:open status:' })).toBe(
      "Validation failed: q: at 9: expected a value after 'status:'",
    );
    await mcp.close();
  });

  it('relates issues, shows blocked and removes relations through tools, as the REST API does', async () => {
    const { mcp, rest } = await orgWithMcp();
    const project = (await mcp.ok('create_project', { name: 'Rel', prefix: randomPrefix() })).project as { id: number };
    const blocker = (await mcp.ok('create_issue', { project_id: project.id, title: 'Blocker' })).issue;
    const blocked = (await mcp.ok('create_issue', { project_id: project.id, title: 'Blocked' })).issue;
    const added = await mcp.call('add_relation', {
      issue_key: blocked.issue_number,
      type: 'blocked_by',
      other_issue_key: blocker.issue_number,
    });
    expect(added.result.isError).toBeFalsy();
    const { relation } = added.result.structuredContent as { relation: { id: string; type: string } };
    expect(relation).toMatchObject({ id: `${blocker.id}-blocks-${blocked.id}`, type: 'blocked_by' });
    expect(added.dbCalls).toBeLessThanOrEqual(4);
    expect((await mcp.ok('get_issue', { issue_number: blocked.issue_number })).issue.blocked).toBe(true);
    const listed = await mcp.call('list_relations', { issue_key: blocker.issue_number });
    expect(listed.dbCalls).toBeLessThanOrEqual(3);
    expect(listed.result.structuredContent).toEqual({
      relations: (await rest.get(`/api/v1/issues/${blocker.issue_number}/relations`)).body,
    });
    expect((listed.result.structuredContent as { relations: { type: string }[] }).relations[0]?.type).toBe('blocks');
    expect(
      await mcp.error('add_relation', { issue_key: blocked.issue_number, type: 'blocks', other_issue_key: blocked.issue_number }),
    ).toBe('Validation failed: issue_key must name another issue: an issue cannot relate to itself');
    expect(await mcp.ok('delete_relation', { issue_key: blocker.issue_number, relation_id: relation.id })).toEqual({
      deleted: true,
      relation_id: relation.id,
    });
    expect((await mcp.ok('get_issue', { issue_number: blocked.issue_number })).issue.blocked).toBe(false);
    expect((await rest.get(`/api/v1/issues/${blocked.issue_number}/relations`)).body).toEqual([]);
    await mcp.close();
  });

  it('reports domain errors as tool errors with the REST messages', async () => {
    const { mcp, rest } = await orgWithMcp();
    const prefix = randomPrefix();
    await mcp.ok('create_project', { name: 'A', prefix });
    const restDup = await rest.post('/api/v1/projects', { project: { name: 'B', prefix } });
    expect(restDup.body).toEqual({ errors: ['prefix has already been taken'] });
    expect(await mcp.error('create_project', { name: 'B', prefix })).toBe('Validation failed: prefix has already been taken');
    expect(await mcp.error('get_project', { project_id: 999_999 })).toBe((await rest.get('/api/v1/projects/999999')).body.error);
    expect(await mcp.error('update_project', { project_id: 999_999, name: 'x' })).toBe('Project not found');
    // Input that fails the schema never reaches the domain, and says which field is wrong.
    expect(await mcp.error('create_project', { name: 'C', prefix: 'toolong' })).toContain(
      'must be 2 to 4 uppercase letters or digits',
    );
    expect(await mcp.error('get_project', { project_id: true })).toContain('project_id');
    await mcp.close();
  });

  it('deletes only for admins, as a destructive tool', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project } = await mcp.ok('create_project', { name: 'Doomed', prefix: randomPrefix() });
    const member = await mcpClient(gateway.baseUrl, org.member.token);
    expect(await member.error('delete_project', { project_id: project.id })).toBe('Only admins may delete projects');
    expect(await mcp.ok('delete_project', { project_id: project.id })).toEqual({ deleted: true, project_id: project.id });
    expect((await rest.get(`/api/v1/projects/${project.id}`)).status).toBe(404);
    expect(await mcp.error('delete_project', { project_id: project.id })).toBe('Project not found');
    await member.close();
    await mcp.close();
  });

  it("never reaches another organisation's data", async () => {
    const a = await orgWithMcp();
    const b = await orgWithMcp();
    const { project } = await a.mcp.ok('create_project', { name: 'Secret', prefix: randomPrefix() });
    expect(await b.mcp.error('get_project', { project_id: project.id })).toBe('Project not found');
    expect(await b.mcp.error('update_project', { project_id: project.id, name: 'Mine' })).toBe('Project not found');
    expect(await b.mcp.error('delete_project', { project_id: project.id })).toBe('Project not found');
    expect((await b.mcp.ok('get_workspace')).projects).toEqual([]);
    expect((await a.rest.get(`/api/v1/projects/${project.id}`)).body.name).toBe('Secret');
    await a.mcp.close();
    await b.mcp.close();
  });
});

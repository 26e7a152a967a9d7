import { afterAll, describe, expect, it } from 'vitest';
import { routes, type Route } from '../../lib/routes.ts';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';
import { apiClient, nextLink, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * Strict query parameters through the local gateway, for every row of the route table: a name the
 * operation does not list in the OpenAPI document is 422 `{"errors": [...]}` and writes nothing;
 * the names it lists are still taken.
 */
const gateway = useGateway();
let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;
/** The query parameters the document lists for a row, in its order (read here, not from the service's map). */
const listed = (r: Route): string[] =>
  ((doc.paths[r.path][r.method.toLowerCase()].parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name);
const expectedMessage = (name: string, r: Route) =>
  `Unknown query parameter '${name}' (known: ${listed(r).length ? listed(r).join(', ') : 'none'})`;

const mcpHeaders = { Accept: 'application/json, text/event-stream' };

/** An organisation with a project, a planning and an active sprint, an issue in each list, a comment and a delivered webhook. */
async function fixture() {
  const { org, admin, member } = await orgWithClients(gateway);
  const post = async (path: string, body: unknown) => {
    const res = await admin.post(path, body);
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  receiver = await startReceiver();
  const hook = await post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['issue.created'] } });
  receiver.secret = hook.secret;
  const project = await post('/api/v1/projects', { project: { name: 'Strict', prefix: randomPrefix() } });
  const p = `/api/v1/projects/${project.id}`;
  const planning = await post(`${p}/sprints`, { sprint: { name: 'Planning' } });
  const active = await post(`${p}/sprints`, { sprint: { name: 'Active' } });
  await post(`${p}/sprints/${active.id}/activate`, {});
  const issue = await post(`${p}/sprints/${planning.id}/issues`, { issue: { title: 'In a sprint', assignee_id: org.admin.id } });
  const backlogIssue = await post(`${p}/issues`, { issue: { title: 'In the backlog' } });
  const comment = await post(`${p}/sprints/${planning.id}/issues/${issue.id}/comments`, { comment: { body: 'one' } });
  const label = await post(`${p}/labels`, { label: { name: 'strict' } });
  const relation = await post(`/api/v1/issues/${issue.issue_number}/relations`, {
    relation: { type: 'relates_to', issue_key: backlogIssue.issue_number },
  });
  const attachment = await post(`/api/v1/issues/${issue.issue_number}/attachments`, {
    attachment: { name: 'a.txt', content_type: 'text/plain', size: 5 },
  });
  const state = await post(`${p}/states`, { state: { name: 'Review', category: 'in_progress' } });
  const field = await post(`${p}/fields`, { field: { name: 'Severity', type: 'text' } });
  // A connected repository, whose connection the GitHub rows read and write.
  expect((await admin.put(`${p}/github`, { github: { repository: `strict-${project.id}-${org.orgId}/repo` } })).status).toBe(200);
  // A change of the backlog issue, for a revert to name.
  await admin.patch(`${p}/issues/${backlogIssue.id}`, { issue: { story_points: 2 } });
  const change = (await activityOf(admin, `${p}/issues/${backlogIssue.id}`, 2))[1];
  const gone = await post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['sprint.completed'] } });
  expect((await admin.delete(`/api/v1/webhooks/${gone.id}`)).status).toBe(204);
  await waitFor(() => receiver!.accepted().length >= 2, 60_000, 'the webhook deliveries');
  const delivery = receiver.accepted()[0]!.id;
  // Settled: no delivery still pending, so that the deliveries list only changes if a request changes it.
  for (let i = 0; i < 100; i++) {
    const list = (await admin.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body as Json[];
    if (list.length >= 2 && list.every((d) => d.status !== 'pending')) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const followed = await post('/api/v1/me/subscriptions', { subscription: { query: 'is:open' } });
  const ids: Record<string, string> = {
    subscription_id: String(followed.id),
    project_id: String(project.id),
    issue_id: String(issue.id),
    id: String(comment.id),
    webhook_id: String(hook.id),
    label_id: String(label.id),
    delivery_id: delivery,
    issue_key: issue.issue_number,
    relation_id: relation.id,
    attachment_id: String(attachment.id),
    state_id: String(state.id),
    field_id: String(field.id),
    trash_id: `webhook-${gone.id}`,
    job_id: '00000000-0000-4000-8000-000000000001',
    activity_id: change.id,
  };
  return { admin, member, p, planning: planning.id, active: active.id, backlogIssue: backlogIssue.id, ids };
}
type Fixture = Awaited<ReturnType<typeof fixture>>;

/** A row's path with the fixture's resources in it: the backlog's issue on backlog paths, the active sprint for completion. */
function pathOf(r: Route, f: Fixture): string {
  const isBacklogIssue = r.path.includes('/issues/{issue_id}') && !r.path.includes('/sprints/');
  const completes = /\/(complete|completion)$/.test(r.path);
  return r.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'issue_id' && isBacklogIssue) return String(f.backlogIssue);
    if (name === 'sprint_id') return String(completes ? f.active : f.planning);
    return f.ids[name]!;
  });
}

/** A body the row would accept, so that only the query can refuse the request. */
function bodyOf(r: Route, f: Fixture): unknown {
  if (!r.operation.body) return undefined;
  const path = r.path;
  if (path === '/mcp') {
    return {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_issue', arguments: { project_id: Number(f.ids.project_id), title: 'Through MCP' } },
    };
  }
  if (/\/(complete|completion)$/.test(path)) return {};
  if (path === '/api/v1/me/notifications/read') return { all: true };
  if (path === '/api/v1/me/subscriptions') return { subscription: { query: 'label:strict' } };
  if (path.endsWith('/attachments')) return { attachment: { name: 'b.txt', content_type: 'text/plain', size: 5 } };
  if (path === '/api/v1/accounts') return { account: { name: 'New', email: `n${randomPrefix()}@example.com` } };
  if (path === '/api/v1/projects') return { project: { name: 'New', prefix: randomPrefix() } };
  if (path.startsWith('/api/v1/webhooks')) return { webhook: { url: receiver!.url, events: ['issue.created'], active: true } };
  if (path.endsWith('/comments') || path.startsWith('/api/v1/comments')) return { comment: { body: 'changed' } };
  if (path.endsWith('/states')) return { state: { name: `State ${randomPrefix()}`, category: 'in_progress' } };
  if (path.includes('/states/')) return { state: { name: `Changed ${randomPrefix()}` } };
  if (path.includes('/labels')) return { label: { name: `changed-${randomPrefix()}` } };
  if (path.endsWith('/fields')) return { field: { name: `Field ${randomPrefix()}`, type: 'text' } };
  if (path.includes('/fields/')) return { field: { name: `Changed ${randomPrefix()}` } };
  if (path.endsWith('/bulk')) return { items: [{ issue: { title: 'Changed' } }] };
  if (path.includes('/issues')) return { issue: { title: 'Changed' } };
  if (path.includes('/sprints')) return { sprint: { name: 'Changed' } };
  return { project: { name: 'Changed' } };
}

/**
 * What a write row would change, read back: the GET of its resource or collection; the sprint of a
 * transition; the caller (with its own token) for the token routes; the backlog for `/mcp` (whose
 * body creates an issue there); the delivery for a redelivery. Undefined for reads.
 */
function witnessOf(r: Route, path: string, f: Fixture): { client: ApiClient; path: string } | undefined {
  if (r.access === 'read') return undefined;
  // The authorization server's writes (a client, a code, tokens) are refused before any is made.
  if (r.authServer) return undefined;
  // GitHub's receiver: an unsigned delivery writes nothing whatever it says (test/e2e/github.test.ts).
  if (r.receiver) return undefined;
  if (r.path === '/api/v1/me/token') return { client: f.member, path: '/api/v1/me' };
  if (r.path === '/mcp') return { client: f.admin, path: `${f.p}/issues` };
  // An upload would write a job and its file, then create issues in the background: the project's
  // labels and backlog (what a job's run writes first) stay as they were.
  if (r.path === '/api/v1/imports') return { client: f.admin, path: `${f.p}/issues` };
  if (r.path.endsWith('/redeliver')) return { client: f.admin, path: path.replace(/\/[^/]+\/redeliver$/, '') };
  if (r.path.endsWith('/secret')) return { client: f.admin, path: path.replace(/\/secret$/, '') };
  // A restore or a purge: the trashed item as read.
  if (r.path.startsWith('/api/v1/trash')) return { client: f.admin, path: `/api/v1/trash/${f.ids.trash_id}` };
  // A bulk write's list.
  if (r.path.endsWith('/bulk')) return { client: f.admin, path: path.replace(/\/bulk$/, '') };
  // An attachment's GET is a redirect to its file: its issue's list of attachments.
  if (r.path.includes('/attachments')) return { client: f.admin, path: path.replace(/\/attachments(\/.*)?$/, '/attachments') };
  // A revert writes the issue its entry is of.
  if (r.path.startsWith('/api/v1/activity/')) return { client: f.admin, path: `${f.p}/issues/${f.backlogIssue}` };
  // The caller's inbox and followed queries; an issue's watchers, on the issue.
  if (r.path.startsWith('/api/v1/me/notifications')) return { client: f.admin, path: '/api/v1/me/notifications' };
  if (r.path.startsWith('/api/v1/me/subscriptions')) return { client: f.admin, path: '/api/v1/me/subscriptions' };
  if (r.path.endsWith('/watch')) return { client: f.admin, path: path.replace(/\/watch$/, '') };
  // A relation has no GET of its own: its issue's list of relations.
  if (r.path.endsWith('/relations/{relation_id}')) return { client: f.admin, path: path.replace(/\/[^/]+$/, '') };
  return { client: f.admin, path: path.replace(/\/(activate|activation|complete|completion)$/, '') };
}

describe('strict query parameters', () => {
  it('answers 422 {errors: ["Unknown query parameter \'bogus\' (known: ...)"]} on every route of the table, and writes nothing', async () => {
    const f = await fixture();
    const tested: string[] = [];
    // OAuth's authorization endpoint ignores unknown parameters instead (RFC 6749 §3.1; test/e2e/oauth-endpoints.test.ts).
    for (const r of routes.filter((r) => !r.operation.lenientQuery)) {
      const label = `${r.method} ${r.path}`;
      const path = pathOf(r, f);
      // The token routes act on the member's own token, so that a failure here cannot end the admin's.
      const client = r.path === '/api/v1/me/token' ? f.member : f.admin;
      const witness = witnessOf(r, path, f);
      const before = witness && (await witness.client.get(witness.path));
      const body = bodyOf(r, f);
      const res = await client.request(r.method, `${path}?bogus=1`, {
        ...(body === undefined ? {} : { json: body }),
        headers: r.path === '/mcp' ? mcpHeaders : {},
      });
      expect(res.status, label).toBe(422);
      expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
      expect(res.body, label).toEqual({ errors: [expectedMessage('bogus', r)] });
      if (witness) {
        const after = await witness.client.get(witness.path);
        expect(after.status, `${label}: ${witness.path}`).toBe(200);
        expect(after.text, `${label}: ${witness.path} unchanged`).toBe(before!.text);
      }
      tested.push(label);
    }
    expect(tested.length).toBe(routes.filter((r) => !r.operation.lenientQuery).length);
  }, 300_000);

  it('takes every list of the table with page and per_page, and each filter a list lists', async () => {
    const f = await fixture();
    // Lists read by GET (the search's POST form takes its page in the body).
    for (const r of routes.filter((r) => r.operation.success.list && r.method === 'GET')) {
      const res = await f.admin.get(`${pathOf(r, f)}?page=1&per_page=1`);
      expect(res.status, `${r.method} ${r.path}`).toBe(200);
      expect(res.headers.get('x-per-page'), `${r.method} ${r.path}`).toBe('1');
    }
    const filters = 'status=backlog,todo&assignee_id=none&q=back&updated_since=2000-01-01T00:00:00Z&priority=none,low&type=task';
    const backlog = await f.admin.get(`${f.p}/issues?${filters}&per_page=5&page=1`);
    expect(backlog.status).toBe(200);
    expect(backlog.body.map((i: Json) => i.title)).toEqual(['In the backlog']);
    const sprint = await f.admin.get(`${f.p}/sprints/${f.planning}/issues?status=todo&q=SPRINT&per_page=5`);
    expect(sprint.status).toBe(200);
    expect(sprint.body.map((i: Json) => i.title)).toEqual(['In a sprint']);
    expect((await f.admin.get(`/api/v1/me/issues?status=todo&per_page=5`)).status).toBe(200);
    expect((await f.admin.get(`/api/v1/me/issues?priority=high&type=bug&due_after=2000-01-01&per_page=5`)).status).toBe(200);
    expect((await f.admin.get(`${f.p}/velocity?sprints=3`)).status).toBe(200);
    // The export takes `include_trash` (docs/import-export.md); a misspelling of it is named with it.
    expect((await f.admin.get('/api/v1/export?include_trash=true&per_page=1')).status).toBe(200);
    const misspelt = await f.admin.get('/api/v1/export?include_trashed=true');
    expect(misspelt.status).toBe(422);
    expect(misspelt.body.errors.join(' ')).toContain('include_trash');
    const search = await f.admin.get('/api/v1/issues?q=backlog&per_page=5&page=1');
    expect(search.status).toBe(200);
    expect(search.body.map((i: Json) => i.title)).toEqual(['In the backlog']);
    const posted = await f.admin.post('/api/v1/issues/search', { and: [{ title: { contains: 'backlog' } }], per_page: 1 });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('x-per-page')).toBe('1');
    // The next link's cursor is a known parameter too.
    const first = await f.admin.get(`${f.p}/sprints?per_page=1`);
    const next = nextLink(first);
    expect(next).toContain('cursor=');
    expect((await f.admin.get(next!)).status).toBe(200);
  }, 120_000);

  it('is case-sensitive, names each unknown parameter once, and keeps the last value of a known one given twice', async () => {
    const f = await fixture();
    const projects = routes.find((r) => r.method === 'GET' && r.path === '/api/v1/projects')!;
    const res = await f.admin.get('/api/v1/projects?Page=1&per_page=1&label=a&label=b');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: [expectedMessage('Page', projects), expectedMessage('label', projects)] });
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    const twice = await f.admin.get('/api/v1/projects?per_page=1&per_page=2');
    expect(twice.status).toBe(200);
    expect(twice.headers.get('x-per-page')).toBe('2');
  }, 120_000);

  it('comes after the token check and before the route looks up its ids', async () => {
    const f = await fixture();
    const anonymous = apiClient(gateway.baseUrl);
    expect((await anonymous.get(`${f.p}?bogus=1`)).status).toBe(401);
    const missing = await f.admin.get('/api/v1/projects/999999999?bogus=1');
    expect(missing.status).toBe(422);
    expect((await f.admin.get('/api/v1/projects/999999999')).status).toBe(404);
  }, 120_000);

  it('leaves an Idempotency-Key unused: the same key without the parameter then creates', async () => {
    const f = await fixture();
    const key = `strict-${randomPrefix()}`;
    const body = { project: { name: 'Keyed', prefix: randomPrefix() } };
    const refused = await f.admin.post('/api/v1/projects?bogus=1', body, { headers: { 'Idempotency-Key': key } });
    expect(refused.status).toBe(422);
    const created = await f.admin.post('/api/v1/projects', body, { headers: { 'Idempotency-Key': key } });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  }, 120_000);
});

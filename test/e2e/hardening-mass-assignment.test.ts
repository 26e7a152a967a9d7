/**
 * Mass assignment, driven by THE route table: every write (a route with a body, and the body-less
 * POST transitions) is sent its valid payload plus every read-only, foreign and storage-internal
 * field it does not accept. The fields of the resource's own answer are accepted and ignored (2xx:
 * what a read answers may be sent back); every other one is refused (422 naming it: Stripe's rule,
 * docs/api.md). What a write stored, read back over HTTP and straight from the table, carries none
 * of them.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, type Key } from '../../lib/db/core/keys.ts';
import { hashToken, generateToken } from '../../lib/model/tokens.ts';
import { routes, type Route } from '../../lib/routes.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, useGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

const gateway = useGateway();

const SENTINEL = 987_654;
const SENTINEL_TIME = '1999-12-31T23:59:59.000Z';
const plantedToken = generateToken();

/** Everything a client might try to set that no write accepts as input (unless its schema names it). */
function injections(fx: Fixture): Record<string, unknown> {
  return {
    id: SENTINEL,
    org_id: SENTINEL,
    type: 'evil',
    issue_type: 'evil',
    PK: 'EVIL#PK',
    SK: 'EVIL#SK',
    LSK: 'EVIL#LSK',
    GSI1PK: 'EVIL#GSI1PK',
    GSI1SK: 'EVIL#GSI1SK',
    created_at: SENTINEL_TIME,
    updated_at: SENTINEL_TIME,
    started_at: SENTINEL_TIME,
    completed_at: SENTINEL_TIME,
    actual_end_date: '1999-12-31',
    sprints_count: SENTINEL,
    issues_count: SENTINEL,
    comments_count: SENTINEL,
    total_story_points: SENTINEL,
    completed_story_points: SENTINEL,
    open_issues_count: SENTINEL,
    backlog_count: SENTINEL,
    issue_seq: SENTINEL,
    position_seq: SENTINEL,
    issue_id_next: SENTINEL,
    issue_id_end: SENTINEL,
    positions_rev: SENTINEL,
    issue_number: 'EVIL-1',
    slug: 'evil-slug',
    github_repo_owner: 'evil',
    github_repo_name: 'evil',
    status: 'completed', // read-only on sprints (transitions only); legit on issues
    author_id: fx.memberId,
    author_name: 'Evil Author',
    project_id: fx.otherProjectId,
    sprint_id: fx.otherSprintId,
    issue_id: fx.otherIssueId,
    token: plantedToken,
    token_hash: hashToken(plantedToken),
    tat: 0,
    expires_at: 1,
    role: 'admin',
    updated_by: SENTINEL,
    secret: 'whsec_planted',
    failing_since: SENTINEL_TIME,
    label_ids: [SENTINEL],
    labels_count: SENTINEL,
  };
}

interface Fixture {
  client: ApiClient;
  /** The member's client: PATCH /me is sent as a member, so that a planted `role` would show. */
  member: ApiClient;
  orgId: number;
  adminId: number;
  memberId: number;
  project: Record<string, any>;
  sprint: Record<string, any>;
  issue: Record<string, any>;
  backlogIssue: Record<string, any>;
  comment: Record<string, any>;
  webhook: Record<string, any>;
  label: Record<string, any>;
  state: Record<string, any>;
  field: Record<string, any>;
  otherProjectId: number;
  otherSprintId: number;
  otherIssueId: number;
}

async function fixture(): Promise<Fixture> {
  const org = await newOrganisation();
  const client = apiClient(gateway.baseUrl, org.admin.token);
  const made = async (path: string, body: unknown) => {
    const res = await client.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const project = await made('/api/v1/projects', { project: { name: 'Target', prefix: randomPrefix() } });
  const other = await made('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } });
  const pp = `/api/v1/projects/${project.id}`;
  const sprint = await made(`${pp}/sprints`, { sprint: { name: 'Target sprint' } });
  const otherSprint = await made(`${pp}/sprints`, { sprint: { name: 'Other sprint' } });
  const issue = await made(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: 'Target issue' } });
  const otherIssue = await made(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: 'Other issue' } });
  const backlogIssue = await made(`${pp}/issues`, { issue: { title: 'Backlog issue' } });
  const comment = await made(`${pp}/sprints/${sprint.id}/issues/${issue.id}/comments`, { comment: { body: 'Target comment' } });
  const webhook = await made('/api/v1/webhooks', {
    // A target on this machine: nothing a test makes is ever sent off it.
    webhook: { url: 'http://127.0.0.1:65535/t', events: ['project.deleted'] },
  });
  const label = await made(`${pp}/labels`, { label: { name: 'Target label' } });
  const state = await made(`${pp}/states`, { state: { name: 'Target state', category: 'in_progress' } });
  const field = await made(`${pp}/fields`, { field: { name: 'Target field', type: 'select', options: [{ name: 'one' }] } });
  return {
    webhook,
    label,
    state,
    field,
    client,
    member: apiClient(gateway.baseUrl, org.member.token),
    orgId: org.orgId,
    adminId: org.admin.id,
    memberId: org.member.id,
    project,
    sprint,
    issue,
    backlogIssue,
    comment,
    otherProjectId: other.id,
    otherSprintId: otherSprint.id,
    otherIssueId: otherIssue.id,
  };
}

/**
 * The keys a route's body takes (those of the object inside its wrapper) and the read-only ones it
 * accepts and ignores (the resource's answer's other fields).
 */
function accepted(route: Route): { wrapper: string; keys: string[]; readOnly: string[] } {
  const outer = route.operation.body as z.ZodObject;
  const wrapper = Object.keys(outer.shape)[0]!;
  let inner = outer.shape[wrapper] as { shape?: Record<string, z.ZodType>; def?: { innerType?: unknown; in?: unknown } };
  while (!inner.shape && (inner.def?.innerType || inner.def?.in)) inner = (inner.def.innerType ?? inner.def.in) as typeof inner;
  const entries = Object.entries(inner.shape ?? {});
  const isReadOnly = (schema: z.ZodType) => z.globalRegistry.get(schema)?.readOnly === true;
  return {
    wrapper,
    keys: entries.filter(([, schema]) => !isReadOnly(schema)).map(([k]) => k),
    readOnly: entries.filter(([, schema]) => isReadOnly(schema)).map(([k]) => k),
  };
}

/** The route's path for the fixture's resources. */
function pathFor(route: Route, fx: Fixture): string {
  return route.path
    .replace('{project_id}', String(fx.project.id))
    .replace('{sprint_id}', String(fx.sprint.id))
    .replace('{issue_id}', String(route.path.includes('{sprint_id}') ? fx.issue.id : fx.backlogIssue.id))
    .replace('{webhook_id}', String(fx.webhook.id))
    .replace('{label_id}', String(fx.label.id))
    .replace('{state_id}', String(fx.state.id))
    .replace('{field_id}', String(fx.field.id))
    .replace('{issue_key}', String(fx.issue.issue_number))
    .replace('{id}', () => {
      if (route.path.startsWith('/api/v1/comments')) return String(fx.comment.id);
      if (route.path.includes('/issues/{id}'))
        return String(route.path.includes('{sprint_id}') ? fx.issue.id : fx.backlogIssue.id);
      if (route.path.includes('/sprints/{id}')) return String(fx.sprint.id);
      return String(fx.project.id);
    });
}

/** A valid payload for the route (creates need their required fields). */
function validFields(wrapper: string, create: boolean): Record<string, unknown> {
  const tag = Math.random().toString(36).slice(2, 8);
  switch (wrapper) {
    case 'project':
      return create ? { name: 'Made', prefix: randomPrefix(), description: 'ok' } : { name: 'Renamed' };
    case 'sprint':
      return { name: create ? 'Made sprint' : 'Renamed sprint' };
    case 'issue':
      return { title: create ? 'Made issue' : 'Renamed issue' };
    case 'comment':
      return { body: create ? 'Made comment' : 'Edited comment' };
    case 'account':
      return create ? { name: 'Made account', email: `made-${tag}@example.com`, role: 'member' } : { handle: `made-${tag}` };
    case 'webhook':
      return create ? { url: `http://127.0.0.1:65535/${tag}`, events: ['*'] } : { events: ['issue.created'] };
    case 'label':
      return { name: `${create ? 'made' : 'renamed'}-${tag}` };
    case 'relation':
      // The other issue's key is the fixture's backlog issue's, put in by the test.
      return { type: 'relates_to', issue_key: 'XX-1' };
    case 'attachment':
      return { name: `made-${tag}.txt`, content_type: 'text/plain', size: 5 };
    case 'state':
      return create ? { name: `Made ${tag}`, category: 'in_progress' } : { name: `Renamed ${tag}` };
    case 'field':
      return create ? { name: `Made ${tag}`, type: 'select', options: [{ name: 'a' }] } : { name: `Renamed ${tag}` };
    case 'github':
      return { repository: `made-${tag}/repo` };
    case 'organisation':
      return { trash_retention_days: 14 };
    case 'subscription':
      return { query: `label:made-${tag}` };
    default:
      throw new Error(`no valid payload for "${wrapper}": extend validFields`);
  }
}

/** Table key of the resource a response describes (to read what was really stored). */
function storedKey(wrapper: string, fx: Fixture, body: Record<string, any>): Key {
  switch (wrapper) {
    case 'project':
      return keys.project(fx.orgId, body.id);
    case 'sprint':
      return keys.sprint(fx.orgId, fx.project.id, body.id);
    case 'issue':
      return keys.issue(fx.orgId, fx.project.id, body.id);
    case 'comment':
      return keys.comment(fx.orgId, fx.project.id, body.issue_id, body.id);
    case 'webhook':
      return keys.webhook(fx.orgId, body.id);
    case 'label':
      return keys.label(fx.orgId, fx.project.id, body.id);
    case 'relation':
      // Stored on the issue of the path.
      return keys.issue(fx.orgId, fx.project.id, fx.issue.id);
    case 'attachment':
      return keys.attachment(fx.orgId, fx.project.id, body.issue_id, body.id);
    case 'state':
      return keys.state(fx.orgId, fx.project.id, body.id);
    case 'field':
      // A field's definition lives on its project item (docs/custom-fields.md).
      return keys.project(fx.orgId, fx.project.id);
    case 'organisation':
      return keys.org(fx.orgId);
    case 'github':
      return keys.githubRepo(`${body.repository_owner}/${body.repository_name}`);
    case 'subscription':
      return keys.follow(fx.orgId, fx.adminId, body.id);
    default:
      return keys.account(fx.orgId, body.account?.id ?? body.id);
  }
}

const STORED_TYPE: Record<string, string> = {
  project: 'project',
  sprint: 'sprint',
  issue: 'issue',
  comment: 'comment',
  account: 'account',
  webhook: 'webhook',
  label: 'label',
  relation: 'issue',
  attachment: 'attachment',
  state: 'state',
  field: 'project',
  organisation: 'organisation',
  github: 'github_repo',
  subscription: 'follow',
};

// A completion's optional body holds a transition's options, not a resource: test/e2e/sprint-outcomes.test.ts covers it.
// Writes only: the search's POST reads (its body is a selection, refused whole if it holds an unknown key).
// A bulk write's body is a list of issue bodies, and an import's is the uploaded file itself (no
// JSON resource to plant keys in): each has its own case below, on what it stores. Marking
// notifications read names them (or all): no resource is written from its body (test/e2e/notifications.test.ts).
const allWrites = routes.filter(
  (r) =>
    r.auth &&
    r.access === 'write' &&
    r.operation.body &&
    !r.operation.optionalBody &&
    r.path !== '/mcp' &&
    r.path !== '/api/v1/me/notifications/read',
);
const bulkWrites = allWrites.filter((r) => r.path.endsWith('/bulk'));
const uploads = allWrites.filter((r) => !('shape' in r.operation.body!));
const writes = allWrites.filter((r) => !bulkWrites.includes(r) && !uploads.includes(r));

/** The keys an issue body accepts (and the read-only ones it ignores): a bulk item is the single create's or update's body. */
function issueKeys(create: boolean): { keys: string[]; readOnly: string[] } {
  const path = create ? '/api/v1/projects/{project_id}/issues' : '/api/v1/projects/{project_id}/issues/{issue_id}';
  const single = writes.find((r) => r.path === path && r.method === (create ? 'POST' : 'PATCH'))!;
  return accepted(single);
}

/** The planted fields split: those a body accepts and ignores (its resource's answer's), and the others, refused. */
function split(plant: Record<string, unknown>, readOnly: string[]) {
  const entries = Object.entries(plant);
  return {
    ignored: Object.fromEntries(entries.filter(([k]) => readOnly.includes(k))),
    refused: Object.fromEntries(entries.filter(([k]) => !readOnly.includes(k))),
  };
}
const transitions = routes.filter((r) => r.auth && r.method === 'POST' && !r.operation.body && /\{id\}\/\w+$/.test(r.path));

describe('mass assignment: read-only, foreign and internal fields are never taken from a body', () => {
  it('covers every write of the route table', () => {
    expect(writes.length).toBeGreaterThanOrEqual(15);
    for (const route of writes) expect(() => validFields(accepted(route).wrapper, true)).not.toThrow();
    expect(bulkWrites.length).toBe(2);
    expect(uploads.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/imports']);
    expect(writes.length + bulkWrites.length + uploads.length).toBe(allWrites.length);
  });

  it.each(bulkWrites.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: neither a created nor an updated item takes a planted field',
    async (_name, route) => {
      const fx = await fixture();
      const inSprint = route.path.includes('{sprint_id}');
      const [create, update] = [issueKeys(true), issueKeys(false)];
      const legit = new Set([...create.keys, ...update.keys]);
      const plant = Object.fromEntries(Object.entries(injections(fx)).filter(([k]) => !legit.has(k)));
      const target = inSprint ? fx.issue : fx.backlogIssue;
      // Inside `issue`, the issue's answer's fields are accepted and ignored; any other planted field, or
      // any beside `issue`, makes that item a 422 naming it.
      const { ignored, refused } = split(plant, create.readOnly);
      expect(split(plant, update.readOnly).ignored).toEqual(ignored);
      const refusedRes = await fx.client.post(pathFor(route, fx), {
        items: [
          { issue: { ...refused, title: 'Refused issue' } },
          { id: target.id, org_id: fx.orgId, issue: { title: 'Refused rename' } },
        ],
      });
      expect(refusedRes.status, refusedRes.text).toBe(200);
      const refusals = refusedRes.body.results as { status: number; errors?: string[] }[];
      expect(refusals.map((r) => r.status)).toEqual([422, 422]);
      for (const key of Object.keys(refused)) expect(refusals[0]!.errors!.join(' '), key).toContain(`'${key}'`);
      expect(refusals[1]!.errors).toEqual(["body has an unknown key 'org_id' (known: issue, id, version)"]);

      const res = await fx.client.post(pathFor(route, fx), {
        items: [{ issue: { ...ignored, title: 'Made issue' } }, { id: target.id, issue: { ...ignored, title: 'Renamed issue' } }],
      });
      expect(res.status, res.text).toBe(200);
      const results = res.body.results as { status: number; issue?: Record<string, any> }[];
      expect(results.map((r) => r.status)).toEqual([201, 200]);
      expect(results[1]!.issue!.id).toBe(target.id);
      for (const { issue } of results) {
        for (const [key, value] of Object.entries(plant)) {
          if (key in issue!) expect(issue![key], `${key} was taken from the body`).not.toEqual(value);
        }
        expect(issue!.project_id).toBe(fx.project.id);
        expect(issue!.sprint_id).toBe(inSprint ? fx.sprint.id : null);
        const item = (
          await db.send(
            new GetCommand({ TableName: tableName(), Key: keys.issue(fx.orgId, fx.project.id, issue!.id), ConsistentRead: true }),
          )
        ).Item as Record<string, unknown>;
        expect(item.type).toBe('issue');
        expect(item.org_id).toBe(fx.orgId);
        for (const key of ['LSK', 'GSI1PK', 'GSI1SK', 'comments_count', 'updated_by', 'label_ids', 'labels_count', 'polluted']) {
          if (key in item) expect(item[key], `stored ${key}`).not.toEqual(plant[key]);
        }
      }
    },
  );

  it('POST /api/v1/imports: the fields of an imported row never set ids, counters or keys', async () => {
    const fx = await fixture();
    // Every planted field at the top of a GitHub issue, but the times the importer keeps from the
    // source on purpose (a REST API issue's `created_at`, `updated_at`: docs/import-export.md).
    const { created_at: _created, updated_at: _updated, ...plant } = injections(fx);
    const file = JSON.stringify([{ ...plant, number: 77, title: 'Imported issue', state: 'OPEN' }]);
    const res = await fx.client.request('POST', `/api/v1/imports?format=github-json&project_id=${fx.project.id}`, {
      raw: file,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status, res.text).toBe(202);
    const job = await eventually(
      `import job ${res.body.id} to finish`,
      async () => (await fx.client.get(`/api/v1/imports/${res.body.id}`)).body,
      (body) => ['succeeded', 'failed'].includes(body.status),
      bounds.job(1),
    );
    expect(job.status, JSON.stringify(job)).toBe('succeeded');
    const issues = (await fx.client.get(`/api/v1/projects/${fx.project.id}/issues?per_page=100`)).body as Record<string, any>[];
    const imported = issues.find((i) => i.title === 'Imported issue');
    expect(imported, JSON.stringify(issues)).toBeDefined();
    for (const [key, value] of Object.entries(plant)) {
      if (key in imported!) expect(imported![key], `${key} was taken from the file`).not.toEqual(value);
    }
    expect(imported!.project_id).toBe(fx.project.id);
    expect(imported!.sprint_id).toBeNull();
    const item = (
      await db.send(
        new GetCommand({ TableName: tableName(), Key: keys.issue(fx.orgId, fx.project.id, imported!.id), ConsistentRead: true }),
      )
    ).Item as Record<string, unknown>;
    expect(item.org_id).toBe(fx.orgId);
    for (const key of ['LSK', 'GSI1PK', 'GSI1SK', 'comments_count', 'updated_by', 'label_ids', 'labels_count', 'token_hash']) {
      if (key in item) expect(item[key], `stored ${key}`).not.toEqual(plant[key]);
    }
  });

  it.each(writes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const fx = await fixture();
    const { wrapper, keys: legit, readOnly } = accepted(route);
    const create = route.method === 'POST';
    const everything = Object.fromEntries(Object.entries(injections(fx)).filter(([k]) => !legit.includes(k)));
    const { ignored: planted, refused } = split(everything, readOnly);
    const valid = {
      ...validFields(wrapper, create),
      ...(wrapper === 'relation' ? { issue_key: fx.backlogIssue.issue_number } : {}),
    };
    const client = route.path === '/api/v1/me' ? fx.member : fx.client;
    // A planted field the resource's answer does not carry is refused, naming it: nothing is taken.
    const refusal = await client.request(route.method, pathFor(route, fx), { json: { [wrapper]: { ...refused, ...valid } } });
    expect(refusal.status, refusal.text).toBe(422);
    const named = (refusal.body.errors as string[]).join(' ');
    for (const key of Object.keys(refused)) expect(named, key).toContain(`'${key}'`);

    // The answer's own fields are accepted, and ignored.
    const payload = { ...planted, ...valid };
    const res = await client.request(route.method, pathFor(route, fx), { json: { [wrapper]: payload } });
    expect([200, 201], res.text).toContain(res.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const resource: Record<string, any> = wrapper === 'account' ? res.body.account : res.body;
    for (const [key, value] of Object.entries(planted)) {
      if (key in resource) expect(resource[key], `${key} was taken from the body`).not.toEqual(value);
    }
    // Foreign ids: the resource stays where the path put it, authored by the caller.
    if ('project_id' in resource) expect(resource.project_id).toBe(fx.project.id);
    // A path by key names the sprint's issue (pathFor), wherever it is.
    const inSprint = route.path.includes('{sprint_id}') || route.path.includes('{issue_key}');
    if (wrapper === 'issue' && inSprint) expect(resource.sprint_id).toBe(fx.sprint.id);
    if (wrapper === 'issue' && !inSprint) expect(resource.sprint_id).toBeNull();
    if (wrapper === 'comment') {
      expect(resource.author_id).toBe(fx.adminId);
      expect(resource.issue_id).toBe(inSprint || !create ? fx.issue.id : fx.backlogIssue.id);
    }
    if (wrapper === 'sprint') expect(resource.status).toBe('planning');

    // And nothing internal was overwritten in the table.
    const item = (
      await db.send(new GetCommand({ TableName: tableName(), Key: storedKey(wrapper, fx, res.body), ConsistentRead: true }))
    ).Item as Record<string, unknown>;
    expect(item, 'stored item').toBeDefined();
    expect(item.type).toBe(STORED_TYPE[wrapper]);
    // The organisation's own item is its id; every other item names it.
    expect(wrapper === 'organisation' ? item.id : item.org_id).toBe(fx.orgId);
    for (const key of [
      'LSK',
      'GSI1PK',
      'GSI1SK',
      'issue_seq',
      'position_seq',
      'issue_id_next',
      'issue_id_end',
      'backlog_count',
      'open_issues_count',
      'positions_rev',
      'token_hash',
      'tat',
      'expires_at',
      'comments_count',
      'updated_by',
      'secret',
      'failing_since',
      'issue_type',
      'label_ids',
      'labels_count',
      'polluted',
    ]) {
      if (key in item) expect(item[key], `stored ${key}`).not.toEqual(planted[key]);
    }
    // A planted token hash never becomes a working token.
    const planted401 = await apiClient(gateway.baseUrl, plantedToken).get('/api/v1/me');
    expect(planted401.status).toBe(401);
  });

  it('refuses a body carrying __proto__ or constructor.prototype (400) and writes nothing', async () => {
    const fx = await fixture();
    const pp = `/api/v1/projects/${fx.project.id}`;
    for (const raw of [
      `{"issue":{"title":"Polluter","__proto__":{"polluted":true,"status":"done"}}}`,
      `{"issue":{"title":"Polluter","constructor":{"prototype":{"polluted":true}}}}`,
      `{"__proto__":{"issue":{"title":"Polluter"}}}`,
    ]) {
      const res = await fx.client.request('POST', `${pp}/sprints/${fx.sprint.id}/issues`, {
        raw,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status, raw).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect((await fx.client.get(`${pp}/sprints/${fx.sprint.id}/issues`)).body).toHaveLength(2);
  });

  it.each(transitions.map((r) => [`${r.method} ${r.path}`, r] as const))('%s ignores any body', async (_name, route) => {
    const fx = await fixture();
    if (/complete|completion/.test(route.path)) {
      expect((await fx.client.post(`/api/v1/projects/${fx.project.id}/sprints/${fx.sprint.id}/activate`)).status).toBe(200);
    }
    const res = await fx.client.post(pathFor(route, fx), {
      sprint: { ...injections(fx), status: 'planning' },
      ...injections(fx),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe(/activat/.test(route.path) ? 'active' : 'completed');
    expect(res.body.id).toBe(fx.sprint.id);
    expect(res.body.project_id).toBe(fx.project.id);
    expect(res.body.issues_count).toBeLessThan(SENTINEL);
    expect(res.body.created_at).not.toBe(SENTINEL_TIME);
  });

  it('POST /api/v1/activity/{activity_id}/revert ignores any body: it puts back what its entry recorded, nothing else', async () => {
    const fx = await fixture();
    const issuePath = `/api/v1/projects/${fx.project.id}/issues/${fx.backlogIssue.id}`;
    const before = (await fx.client.get(issuePath)).body;
    expect((await fx.client.patch(issuePath, { issue: { story_points: 13 } })).status).toBe(200);
    const change = await eventually(
      'the change in the activity',
      async () =>
        ((await fx.client.get(`${issuePath}/activity`)).body as { id: string; event: string }[]).find(
          (e) => e.event === 'issue.updated',
        ),
      (entry) => entry !== undefined,
    );
    const res = await fx.client.post(`/api/v1/activity/${change!.id}/revert`, {
      issue: { ...injections(fx), title: 'Planted' },
      ...injections(fx),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(fx.backlogIssue.id);
    expect(res.body).toMatchObject({
      title: before.title,
      story_points: before.story_points,
      project_id: fx.project.id,
      sprint_id: null,
    });
    expect(res.body.created_at).not.toBe(SENTINEL_TIME);
    const item = (
      await db.send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.issue(fx.orgId, fx.project.id, fx.backlogIssue.id),
          ConsistentRead: true,
        }),
      )
    ).Item as Record<string, unknown>;
    for (const key of ['org_id', 'updated_by', 'label_ids', 'LSK', 'type'])
      expect(item[key], `stored ${key}`).not.toEqual(injections(fx)[key]);
  });
});

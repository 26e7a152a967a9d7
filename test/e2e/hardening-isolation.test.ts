/**
 * Tenant isolation, driven by THE route table: every authenticated route with ids in its path is
 * called with another organisation's admin token and the first organisation's ids. A route added
 * to `lib/routes.ts` is covered without touching this file (its ids are resolved by name).
 */
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { routes, type Route } from '../../lib/routes.ts';
import { apiClient, newOrganisation, randomPrefix, startGateway, type ApiClient, type ApiResponse } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

let gateway: Awaited<ReturnType<typeof startGateway>>;

/** Organisation A's resources; ids are per organisation, so A's are pushed past B's own. */
interface Seeded {
  project: Record<string, any>;
  sprint: Record<string, any>;
  issue: Record<string, any>;
  backlogIssue: Record<string, any>;
  comment: Record<string, any>;
  backlogComment: Record<string, any>;
  webhook: Record<string, any>;
  relation: Record<string, any>;
  label: Record<string, any>;
  attachment: Record<string, any>;
  state: Record<string, any>;
  field: Record<string, any>;
  /** A webhook endpoint of A's deleted into its trash (docs/trash.md): its trash id. */
  trashed: { id: string };
  /** An import job of A (a dry run), settled before the cases run so that its read-back stays put. */
  importJob: Record<string, any>;
  /** A change of A's backlog issue, as its activity shows it (its id names the entry to revert). */
  activity: { id: string };
  /** A delivery id of A's endpoint (none need exist: the endpoint already is not B's). */
  delivery: { id: string };
  extraAccountId: number;
  /** A query A follows. */
  subscription: Record<string, any>;
}

let a: { client: ApiClient; seeded: Seeded; tag: string };
let b: { client: ApiClient; orgId: number };

const tag = `iso${Date.now().toString(36)}`;

beforeAll(async () => {
  gateway = await startGateway();
  const orgA = await newOrganisation();
  const client = apiClient(gateway.baseUrl, orgA.admin.token);
  const ok = (res: ApiResponse) => {
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };
  // Throwaway resources first, so that A's ids are not ones B will own.
  for (let i = 0; i < 2; i++)
    ok(await client.post('/api/v1/projects', { project: { name: `${tag} spare`, prefix: randomPrefix() } }));
  const project = ok(await client.post('/api/v1/projects', { project: { name: `${tag} project`, prefix: randomPrefix() } }));
  const pp = `/api/v1/projects/${project.id}`;
  for (let i = 0; i < 2; i++) ok(await client.post(`${pp}/sprints`, { sprint: { name: `${tag} spare` } }));
  const sprint = ok(await client.post(`${pp}/sprints`, { sprint: { name: `${tag} sprint` } }));
  for (let i = 0; i < 2; i++) ok(await client.post(`${pp}/issues`, { issue: { title: `${tag} spare` } }));
  const issue = ok(await client.post(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: `${tag} issue` } }));
  const backlogIssue = ok(await client.post(`${pp}/issues`, { issue: { title: `${tag} backlog issue` } }));
  const comment = ok(
    await client.post(`${pp}/sprints/${sprint.id}/issues/${issue.id}/comments`, { comment: { body: `${tag} comment` } }),
  );
  const backlogComment = ok(
    await client.post(`${pp}/issues/${backlogIssue.id}/comments`, { comment: { body: `${tag} backlog comment` } }),
  );
  const relation = ok(
    await client.post(`/api/v1/issues/${backlogIssue.issue_number}/relations`, {
      relation: { type: 'relates_to', issue_key: issue.issue_number },
    }),
  );
  ok(await client.patch(`${pp}/issues/${backlogIssue.id}`, { issue: { story_points: 3 } }));
  const activity = await eventually(
    "the backlog issue's change in its activity",
    async () => ok(await client.get(`${pp}/issues/${backlogIssue.id}/activity`)) as { id: string; event: string }[],
    (entries) => entries.some((e) => e.event === 'issue.updated'),
  ).then((entries) => entries.find((e) => e.event === 'issue.updated')!);
  const label = ok(await client.post(`${pp}/labels`, { label: { name: `${tag} label` } }));
  const attachment = ok(
    await client.post(`/api/v1/issues/${backlogIssue.issue_number}/attachments`, {
      attachment: { name: `${tag}.txt`, content_type: 'text/plain', size: 5 },
    }),
  );
  const state = ok(await client.post(`${pp}/states`, { state: { name: `${tag} review`, category: 'in_progress' } }));
  const field = ok(await client.post(`${pp}/fields`, { field: { name: `${tag} field`, type: 'text' } }));
  const subscription = ok(await client.post('/api/v1/me/subscriptions', { subscription: { query: `label:${tag}` } }));
  // A third account: an id B's organisation (admin 1, member 2) does not have.
  const extra = await createAccountInOrg(orgA.orgId, { name: `${tag} extra`, email: `${tag}-extra@example.com`, role: 'member' });
  const webhook = ok(
    await client.post('/api/v1/webhooks', { webhook: { url: `http://127.0.0.1:65535/${tag}`, events: ['project.deleted'] } }),
  );
  const doomed = ok(
    await client.post('/api/v1/webhooks', {
      webhook: { url: `http://127.0.0.1:65535/${tag}-gone`, events: ['project.deleted'] },
    }),
  );
  expect((await client.delete(`/api/v1/webhooks/${doomed.id}`)).status).toBe(204);
  const trashed = { id: `webhook-${doomed.id}` };
  const upload = ok(
    await client.request('POST', `/api/v1/imports?format=github-json&project_id=${project.id}&dry_run=true`, {
      raw: JSON.stringify([{ number: 1, title: `${tag} imported`, state: 'OPEN' }]),
      headers: { 'Content-Type': 'application/json' },
    }),
  );
  const importJob = await eventually(
    `import job ${upload.id} to finish`,
    async () => ok(await client.get(`/api/v1/imports/${upload.id}`)),
    (body) => ['succeeded', 'failed'].includes(body.status),
    bounds.job(1),
  );
  a = {
    client,
    tag,
    seeded: {
      project,
      sprint,
      issue,
      backlogIssue,
      comment,
      backlogComment,
      webhook,
      relation,
      label,
      attachment,
      state,
      field,
      trashed,
      importJob,
      activity: { id: activity.id },
      subscription,
      delivery: { id: 'msg_none' },
      extraAccountId: extra.account.id,
    },
  };
  const orgB = await newOrganisation();
  b = { client: apiClient(gateway.baseUrl, orgB.admin.token), orgId: orgB.orgId };
}, 120_000);

afterAll(async () => {
  await gateway.close();
});

/** The seeded resource a path parameter names: by its name, or for `{id}` by the segment before it. */
function resourceFor(route: Route, param: string, segmentBefore: string): Record<string, any> {
  const { seeded } = a;
  const inSprint = route.path.includes('{sprint_id}');
  const kind = param === 'id' ? segmentBefore : param.replace(/_id$/, 's');
  switch (kind) {
    case 'projects':
      return seeded.project;
    case 'sprints':
      return seeded.sprint;
    case 'issues':
      return inSprint ? seeded.issue : seeded.backlogIssue;
    case 'comments':
      return seeded.comment;
    case 'webhooks':
      return seeded.webhook;
    case 'deliverys':
      return seeded.delivery;
    case 'issue_key':
      return seeded.backlogIssue;
    case 'relations':
      return seeded.relation;
    case 'attachments':
      return seeded.attachment;
    case 'labels':
      return seeded.label;
    case 'states':
      return seeded.state;
    case 'fields':
      return seeded.field;
    case 'trashs':
      return seeded.trashed;
    case 'jobs':
      return seeded.importJob;
    case 'activitys':
      return seeded.activity;
    case 'subscriptions':
      return seeded.subscription;
    default:
      throw new Error(`${route.method} ${route.path}: no seeded resource for {${param}}; extend resourceFor`);
  }
}

/** The route's path with A's ids, and the resource its last id names (what must stay untouched). */
function pathWithIdsOfA(route: Route): { path: string; target: Record<string, any> } {
  const segments = route.path.split('/');
  let target: Record<string, any> | undefined;
  const path = segments
    .map((segment, i) => {
      const m = /^\{(\w+)\}$/.exec(segment);
      if (!m) return segment;
      target = resourceFor(route, m[1]!, segments[i - 1] ?? '');
      return m[1] === 'issue_key' ? String(target.issue_number) : String(target.id);
    })
    .join('/');
  return { path, target: target! };
}

/** Where A reads a resource back. */
function readPathOf(resource: Record<string, any>): string {
  const { seeded } = a;
  const pp = `/api/v1/projects/${seeded.project.id}`;
  if (resource === seeded.project) return pp;
  if (resource === seeded.sprint) return `${pp}/sprints/${seeded.sprint.id}`;
  if (resource === seeded.issue) return `${pp}/sprints/${seeded.sprint.id}/issues/${seeded.issue.id}`;
  if (resource === seeded.backlogIssue) return `${pp}/issues/${seeded.backlogIssue.id}`;
  if (resource === seeded.webhook) return `/api/v1/webhooks/${seeded.webhook.id}`;
  if (resource === seeded.delivery) return `/api/v1/webhooks/${seeded.webhook.id}/deliveries`;
  if (resource === seeded.relation) return `/api/v1/issues/${seeded.backlogIssue.issue_number}/relations`;
  // An attachment's own GET is a redirect (422 while pending): its issue's list shows it.
  if (resource === seeded.attachment) return `/api/v1/issues/${seeded.backlogIssue.issue_number}/attachments`;
  if (resource === seeded.label) return `${pp}/labels/${seeded.label.id}`;
  if (resource === seeded.state) return `${pp}/states/${seeded.state.id}`;
  if (resource === seeded.field) return `${pp}/fields/${seeded.field.id}`;
  if (resource === seeded.trashed) return `/api/v1/trash/${seeded.trashed.id}`;
  if (resource === seeded.importJob) return `/api/v1/imports/${seeded.importJob.id}`;
  if (resource === seeded.subscription) return '/api/v1/me/subscriptions';
  // A revert writes the issue its entry is of.
  if (resource === seeded.activity) return `${pp}/issues/${seeded.backlogIssue.id}`;
  return `/api/v1/comments/${resource.id}`;
}

/** A body that would be valid for the route in B's own organisation (what an attacker would send). */
function validBody(route: Route): unknown {
  if (!route.operation.body) return undefined;
  const wrapper = Object.keys((route.operation.body as z.ZodObject).shape)[0]!;
  const samples: Record<string, unknown> = {
    project: { name: 'Intruder', prefix: 'INTR' },
    sprint: { name: 'Intruder' },
    issue: { title: 'Intruder' },
    comment: { body: 'Intruder' },
    carry_over: { sprint_id: null },
    webhook: { url: 'https://intruder.example.com/', events: ['*'] },
    relation: { type: 'blocks', issue_key: 'INTR-1' },
    label: { name: 'Intruder' },
    state: { name: 'Intruder', category: 'in_progress' },
    field: { name: 'Intruder', type: 'text' },
    attachment: { name: 'intruder.txt', content_type: 'text/plain', size: 5 },
    github: { repository: 'intruder/repo' },
    // A bulk write: a create, and an update of A's issue.
    items: [{ issue: { title: 'Intruder' } }, { id: a.seeded.issue.id, version: 1, issue: { title: 'Intruder' } }],
  };
  if (!(wrapper in samples)) throw new Error(`${route.method} ${route.path}: no sample body for "${wrapper}"`);
  return { [wrapper]: samples[wrapper] };
}

const byId = routes.filter((r) => r.auth && /\{\w+\}/.test(r.path));

describe("tenant isolation: another organisation's ids answer 404 on every route", () => {
  it('covers every authenticated route with ids in its path', () => {
    expect(byId.length).toBeGreaterThanOrEqual(30);
    for (const route of byId) expect(() => pathWithIdsOfA(route)).not.toThrow();
  });

  it.each(byId.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const { path, target } = pathWithIdsOfA(route);
    const readPath = readPathOf(target);
    const before = await a.client.get(readPath);
    expect(before.status).toBe(200);

    const res = await b.client.request(route.method, path, { json: validBody(route) });
    expect(res.status, `${route.method} ${path}: ${res.text}`).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String) });

    // Nothing of A changed: byte for byte what A read before.
    const after = await a.client.get(readPath);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });
});

describe("tenant isolation: another organisation's ids in a query", () => {
  // The import names its project in the query, not the path (so the route table case above does not reach it).
  it("answers 404 to an import into A's project, dry run or not, and A's project gains nothing", async () => {
    const { seeded } = a;
    const pp = `/api/v1/projects/${seeded.project.id}`;
    const before = await a.client.get(`${pp}/issues?per_page=100`);
    for (const dryRun of ['true', 'false']) {
      const res = await b.client.request(
        'POST',
        `/api/v1/imports?format=github-json&project_id=${seeded.project.id}&dry_run=${dryRun}`,
        {
          raw: JSON.stringify([{ number: 1, title: 'Intruder', state: 'OPEN' }]),
          headers: { 'Content-Type': 'application/json' },
        },
      );
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await a.client.get(`${pp}/issues?per_page=100`)).body).toEqual(before.body);
  });
});

describe("tenant isolation: another organisation's data never shows", () => {
  it("keeps A's projects, accounts and comments out of B's lists and lookups", async () => {
    const projects = await b.client.get('/api/v1/projects?per_page=100');
    expect(projects.status).toBe(200);
    expect(JSON.stringify(projects.body)).not.toContain(a.tag);
    expect(projects.headers.get('x-total-count')).toBe('0');
    const accounts = await b.client.get('/api/v1/accounts?per_page=100');
    expect(accounts.status).toBe(200);
    expect(JSON.stringify(accounts.body)).not.toContain(a.tag);
    expect(accounts.body.map((x: { id: number }) => x.id)).not.toContain(a.seeded.extraAccountId);
    const me = await b.client.get('/api/v1/me');
    expect(JSON.stringify(me.body)).not.toContain(a.tag);
    for (const comment of [a.seeded.comment, a.seeded.backlogComment]) {
      expect((await b.client.get(`/api/v1/comments/${comment.id}`)).status).toBe(404);
    }
  });

  it("keeps A's organisation and its settings out of B's reach: B reads and changes only its own", async () => {
    const aBefore = await a.client.get('/api/v1/organisation');
    const own = await b.client.get('/api/v1/organisation');
    expect(own.body.id).toBe(b.orgId);
    expect(JSON.stringify(own.body)).not.toContain(a.tag);
    const changed = await b.client.patch('/api/v1/organisation', { organisation: { trash_retention_days: 3 } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.id).toBe(b.orgId);
    // A's own ETag is no tag B's organisation issued: 412, whatever the version.
    const foreignTag = await b.client.patch(
      '/api/v1/organisation',
      { organisation: { trash_retention_days: 4 } },
      { headers: { 'If-Match': aBefore.headers.get('etag')! } },
    );
    expect(foreignTag.status).toBe(412);
    expect((await a.client.get('/api/v1/organisation')).body).toEqual(aBefore.body);
    expect((await b.client.patch('/api/v1/organisation', { organisation: { trash_retention_days: null } })).status).toBe(200);
  });

  it("refuses references to A's accounts and sprints in B's own writes", async () => {
    const { seeded } = a;
    const project = (await b.client.post('/api/v1/projects', { project: { name: 'B', prefix: randomPrefix() } })).body;
    const pp = `/api/v1/projects/${project.id}`;
    const lead = await b.client.post(`${pp}/sprints`, { sprint: { name: 'B sprint', sprint_lead_id: seeded.extraAccountId } });
    expect(lead.status).toBe(422);
    const sprint = (await b.client.post(`${pp}/sprints`, { sprint: { name: 'B sprint' } })).body;
    const assignee = await b.client.post(`${pp}/sprints/${sprint.id}/issues`, {
      issue: { title: 'B issue', assignee_id: seeded.extraAccountId },
    });
    expect(assignee.status).toBe(422);
    const issue = (await b.client.post(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: 'B issue' } })).body;
    // A sprint of A whose id B's project does not have (ids are per organisation): moving B's issue
    // there is refused, and A's sprint gains nothing.
    const bSprintIds = (await b.client.get(`${pp}/sprints`)).body.map((x: { id: number }) => x.id);
    const aProject = `/api/v1/projects/${seeded.project.id}`;
    let target = (await a.client.post(`${aProject}/sprints`, { sprint: { name: `${a.tag} target` } })).body;
    while (bSprintIds.includes(target.id)) {
      target = (await a.client.post(`${aProject}/sprints`, { sprint: { name: `${a.tag} target` } })).body;
    }
    const move = await b.client.patch(`${pp}/sprints/${sprint.id}/issues/${issue.id}`, { issue: { sprint_id: target.id } });
    expect([404, 422]).toContain(move.status);
    expect((await a.client.get(`${aProject}/sprints/${target.id}`)).body.issues_count).toBe(0);
    expect((await a.client.get(`${aProject}/sprints/${target.id}/issues`)).body).toEqual([]);
    expect((await b.client.get(`${pp}/sprints/${sprint.id}/issues/${issue.id}`)).body.sprint_id).toBe(sprint.id);
  });
});

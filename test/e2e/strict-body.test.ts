import { afterAll, describe, expect, it } from 'vitest';
import { routes, type Route } from '../../lib/routes.ts';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * Stripe's rule through the local gateway, over every row of the route table with a JSON body
 * (docs/api.md: Requests): an unknown key, beside the wrapper or in it (or in an option object
 * such as `carry_over`), is a 422 naming it and the key it most likely meant, and writes nothing;
 * the route's own answer, sent back as it was read, is accepted (its read-only fields ignored),
 * and an update sent back unchanged changes nothing but `updated_at`.
 * test/unit/strict-body.test.ts holds the schemas to the same over the whole table.
 */
const gateway = useGateway();
let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

type Json = Record<string, any>;

/** Rows outside the rule, as test/unit/strict-body.test.ts lists them: not JSON resources, or an RFC's own rules. */
const exempt = new Set([
  'POST /mcp',
  'POST /api/v1/imports',
  'POST /oauth/register',
  'POST /oauth/authorize',
  'POST /oauth/token',
  'POST /oauth/revoke',
  'POST /api/v1/integrations/github',
]);
const label = (r: Route) => `${r.method} ${r.path}`;
const bodied = routes.filter((r) => r.operation.body && !exempt.has(label(r)));

/**
 * An organisation with a project, a planning sprint holding a labelled issue, an active sprint,
 * a backlog issue, a comment, a label, a relation and a webhook that no test event reaches.
 */
async function fixture() {
  const { admin } = await orgWithClients(gateway);
  const ok = async (res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`${r.status} ${r.text}`);
    return r.body as Json;
  };
  receiver ??= await startReceiver();
  const webhook = await ok(admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['project.deleted'] } }));
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Strict bodies', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const tag = await ok(admin.post(`${p}/labels`, { label: { name: 'strict' } }));
  const flow = await ok(admin.post(`${p}/states`, { state: { name: 'Strict', category: 'todo' } }));
  const field = await ok(admin.post(`${p}/fields`, { field: { name: 'Strict', type: 'select', options: [{ name: 'one' }] } }));
  const planning = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'Planning' } }));
  const active = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'Active' } }));
  await ok(admin.post(`${p}/sprints/${active.id}/activate`, {}));
  const issue = await ok(
    admin.post(`${p}/sprints/${planning.id}/issues`, { issue: { title: 'In a sprint', labels: ['strict'], story_points: 3 } }),
  );
  const backlogIssue = await ok(admin.post(`${p}/issues`, { issue: { title: 'In the backlog', labels: [tag.id] } }));
  const third = await ok(admin.post(`${p}/issues`, { issue: { title: 'Third' } }));
  const comment = await ok(admin.post(`${p}/sprints/${planning.id}/issues/${issue.id}/comments`, { comment: { body: 'one' } }));
  await ok(
    admin.post(`/api/v1/issues/${issue.issue_number}/relations`, {
      relation: { type: 'relates_to', issue_key: backlogIssue.issue_number },
    }),
  );
  // A pending attachment, whose list entry is sent back as a create's body.
  expect(
    (
      await admin.post(`/api/v1/issues/${issue.issue_number}/attachments`, {
        attachment: { name: 'first.txt', content_type: 'text/plain', size: 5 },
      })
    ).status,
  ).toBe(201);
  // A connected repository, whose settings a PUT changes.
  const repository = `strict-${randomPrefix().toLowerCase()}/repo`;
  await ok(admin.put(`${p}/github`, { github: { repository } }));
  return { admin, p, project, planning, active, issue, backlogIssue, third, comment, tag, flow, field, webhook, repository };
}
type Fixture = Awaited<ReturnType<typeof fixture>>;

/** A row's path with the fixture's resources in it: the backlog's issue on backlog paths, the active sprint for a completion. */
function pathOf(r: Route, f: Fixture): string {
  const backlog = r.path.includes('/issues/{issue_id}') && !r.path.includes('/sprints/');
  const completes = /\/(complete|completion)$/.test(r.path);
  const ids: Record<string, string> = {
    project_id: String(f.project.id),
    sprint_id: String(completes ? f.active.id : f.planning.id),
    issue_id: String(backlog ? f.backlogIssue.id : f.issue.id),
    id: String(f.comment.id),
    label_id: String(f.tag.id),
    state_id: String(f.flow.id),
    field_id: String(f.field.id),
    webhook_id: String(f.webhook.id),
    issue_key: String(f.issue.issue_number),
  };
  return r.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!);
}

/** What a row's write would change, read back (undefined for the search, which writes nothing): its GET, a list's whole. */
function witnessOf(r: Route, path: string): string | undefined {
  if (r.access === 'read') return undefined;
  // Marks and follows: the caller's inbox and followed queries.
  if (r.path === '/api/v1/me/notifications/read') return '/api/v1/me/notifications';
  if (r.path === '/api/v1/me/subscriptions') return '/api/v1/me/subscriptions';
  const [template, at] = r.path.endsWith('/bulk')
    ? [r.path.replace(/\/bulk$/, ''), path.replace(/\/bulk$/, '')]
    : /\/(complete|completion)$/.test(r.path)
      ? [r.path.replace(/\/[a-z]+$/, ''), path.replace(/\/[a-z]+$/, '')]
      : [r.path, path];
  const read = routes.find((x) => x.method === 'GET' && x.path === template);
  if (!read) throw new Error(`no GET for ${label(r)}`);
  return read.operation.success.list ? `${at}?per_page=100` : at;
}

/**
 * For each row: a body it would take, that body with a misspelt key where a client would misspell
 * one (the key meant), and how the misspelt one is refused.
 */
function bodiesOf(r: Route, f: Fixture): { valid: Json; misspelt: Json; meant: string; itemised?: boolean } {
  const path = r.path;
  if (path === '/api/v1/issues/search') return { valid: { and: [] }, misspelt: { and: [], perPage: 5 }, meant: 'per_page' };
  if (/\/(complete|completion)$/.test(path))
    return { valid: {}, misspelt: { carry_over: { sprint: f.planning.id } }, meant: 'sprint_id' };
  if (path.endsWith('/bulk'))
    return {
      valid: { items: [{ issue: { title: 'Bulk' } }] },
      misspelt: { items: [{ issue: { title: 'Bulk', storyPoints: 3 } }] },
      meant: 'story_points',
      itemised: true,
    };
  if (path === '/api/v1/me/notifications/read')
    return { valid: { all: true }, misspelt: { notificatoins: ['1-1-1'] }, meant: 'notifications' };
  const tag = randomPrefix().toLowerCase();
  const wrapped = (wrapper: string, fields: Json, typo: string, meant: string) => ({
    valid: { [wrapper]: fields },
    misspelt: { [wrapper]: { ...fields, [typo]: fields[meant] ?? 'x' } },
    meant,
  });
  if (path === '/api/v1/accounts') return wrapped('account', { name: 'New', email: `n-${tag}@example.com` }, 'nmae', 'name');
  if (path === '/api/v1/me') return wrapped('account', { handle: `h-${tag}` }, 'hnadle', 'handle');
  if (path === '/api/v1/me/subscriptions') return wrapped('subscription', { query: `label:${tag}` }, 'qeury', 'query');
  if (path === '/api/v1/projects')
    return wrapped('project', { name: 'New', prefix: randomPrefix() }, 'documentationUrl', 'documentation_url');
  if (path.startsWith('/api/v1/projects/{project_id}/labels'))
    return wrapped('label', { name: `l-${tag}`, color: '#aabbcc' }, 'colour', 'color');
  if (path.startsWith('/api/v1/projects/{project_id}/states'))
    return r.method === 'POST'
      ? wrapped('state', { name: `s-${tag}`, category: 'in_progress', wip_limit: 4 }, 'wipLimit', 'wip_limit')
      : wrapped('state', { name: `s-${tag}`, wip_limit: 4 }, 'wipLimit', 'wip_limit');
  if (path.startsWith('/api/v1/projects/{project_id}/fields'))
    return r.method === 'POST'
      ? wrapped('field', { name: `f-${tag}`, type: 'text', required: false }, 'requried', 'required')
      : wrapped('field', { name: `f-${tag}`, required: false }, 'requried', 'required');
  if (path.endsWith('/comments') || path.startsWith('/api/v1/comments'))
    return wrapped('comment', { body: 'changed' }, 'bdoy', 'body');
  if (path.endsWith('/relations'))
    return wrapped('relation', { type: 'relates_to', issue_key: f.third.issue_number }, 'issueKey', 'issue_key');
  if (path.endsWith('/attachments'))
    return wrapped('attachment', { name: 'a.txt', content_type: 'text/plain', size: 5 }, 'contentType', 'content_type');
  if (path.endsWith('/github'))
    return wrapped('github', { repository: f.repository, automation: { enabled: true } }, 'repositry', 'repository');
  if (path.includes('/issues')) return wrapped('issue', { title: 'Changed', story_points: 5 }, 'storyPoints', 'story_points');
  if (path.includes('/sprints'))
    return wrapped('sprint', { name: 'Changed', start_date: '2026-01-05' }, 'startDate', 'start_date');
  if (path.startsWith('/api/v1/webhooks'))
    return wrapped('webhook', { url: receiver!.url, events: ['project.deleted'] }, 'evnets', 'events');
  if (path === '/api/v1/organisation')
    return wrapped('organisation', { trash_retention_days: 12 }, 'trashRetentionDays', 'trash_retention_days');
  return wrapped('project', { name: 'Changed' }, 'descripton', 'description');
}

/**
 * The resource a row's answer is, as a GET answers it, ready to be sent back: for an update the
 * resource itself; for a create an existing one of its kind, its unique fields changed (a copy).
 * Undefined for the rows whose body is not a resource (a search, a completion's options).
 */
async function answerOf(r: Route, f: Fixture, path: string): Promise<{ wrapper: string; body: Json } | undefined> {
  const get = async (url: string) => {
    const res = await f.admin.get(url);
    expect(res.status, url).toBe(200);
    return res.body;
  };
  const p = r.path;
  if (p === '/api/v1/issues/search' || /\/(complete|completion)$/.test(p) || p === '/api/v1/me/notifications/read')
    return undefined;
  if (p === '/api/v1/me/subscriptions') {
    const [followed] = (await get(p)) as Json[];
    return { wrapper: 'subscription', body: followed ?? { query: 'is:open' } };
  }
  if (p.endsWith('/github')) return { wrapper: 'github', body: await get(path) };
  // The caller's own account: GET /me answers it beside its organisation.
  if (p === '/api/v1/me') return { wrapper: 'account', body: (await get(path)).account };
  if (r.method !== 'POST') {
    const wrapper = p.includes('/labels')
      ? 'label'
      : p.includes('/fields')
        ? 'field'
        : p.includes('/states')
          ? 'state'
          : p.startsWith('/api/v1/comments')
            ? 'comment'
            : p.includes('/issues/')
              ? 'issue'
              : p.includes('/sprints/')
                ? 'sprint'
                : p.startsWith('/api/v1/webhooks')
                  ? 'webhook'
                  : p === '/api/v1/organisation'
                    ? 'organisation'
                    : 'project';
    return { wrapper, body: await get(path) };
  }
  if (p === '/api/v1/accounts') {
    const accounts = (await get('/api/v1/accounts')) as Json[];
    return { wrapper: 'account', body: { ...accounts[0], email: `copy-${randomPrefix().toLowerCase()}@example.com` } };
  }
  if (p === '/api/v1/projects') return { wrapper: 'project', body: { ...(await get(f.p)), prefix: randomPrefix() } };
  if (p.endsWith('/labels'))
    return { wrapper: 'label', body: { ...(await get(`${f.p}/labels/${f.tag.id}`)), name: `copy-${randomPrefix()}` } };
  if (p.endsWith('/states'))
    return { wrapper: 'state', body: { ...(await get(`${f.p}/states/${f.flow.id}`)), name: `copy-${randomPrefix()}` } };
  if (p.endsWith('/fields')) {
    const copy = randomPrefix().toLowerCase();
    return {
      wrapper: 'field',
      body: { ...(await get(`${f.p}/fields/${f.field.id}`)), name: `copy-${copy}`, key: `copy_${copy}` },
    };
  }
  if (p.endsWith('/comments')) return { wrapper: 'comment', body: await get(`/api/v1/comments/${f.comment.id}`) };
  if (p.endsWith('/attachments')) {
    const [attachment] = (await get(`/api/v1/issues/${f.issue.issue_number}/attachments`)) as Json[];
    return { wrapper: 'attachment', body: attachment! };
  }
  if (p.endsWith('/relations')) {
    const [relation] = (await get(`/api/v1/issues/${f.issue.issue_number}/relations`)) as Json[];
    return { wrapper: 'relation', body: { ...relation, issue_key: f.third.issue_number } };
  }
  if (p.endsWith('/sprints')) return { wrapper: 'sprint', body: await get(`${f.p}/sprints/${f.active.id}`) };
  if (p.endsWith('/issues/bulk') || p.endsWith('/issues')) {
    const inSprint = p.includes('{sprint_id}');
    const issue = await get(
      inSprint ? `${f.p}/sprints/${f.planning.id}/issues/${f.issue.id}` : `${f.p}/issues/${f.backlogIssue.id}`,
    );
    return { wrapper: 'issue', body: issue };
  }
  if (p === '/api/v1/webhooks') return { wrapper: 'webhook', body: await get(`/api/v1/webhooks/${f.webhook.id}`) };
  throw new Error(`no answer for ${label(r)}: extend answerOf`);
}

/** The resource as a read shows it, `updated_at` left out. */
const sansUpdated = ({ updated_at: _u, ...rest }: Json) => rest;

describe('strict bodies', () => {
  it('on every row with a JSON body: an unknown key is a 422 naming it (and the key meant), writing nothing; the answer sent back is taken', async () => {
    const f = await fixture();
    const covered: string[] = [];
    for (const r of bodied) {
      const name = label(r);
      const path = pathOf(r, f);
      const witness = witnessOf(r, path);
      const before = witness === undefined ? undefined : await f.admin.get(witness);
      const { valid, misspelt, meant, itemised } = bodiesOf(r, f);
      // Beside the wrapper (or at the top of an unwrapped body).
      const beside = await f.admin.request(r.method, path, { json: { ...valid, bogus_key: 1 } });
      expect(beside.status, `${name}: ${beside.text}`).toBe(422);
      const named = (beside.body.errors as string[]).find((m) => m.startsWith("body has an unknown key 'bogus_key' (known: "));
      expect(named, `${name}: ${beside.text}`).toBeDefined();
      for (const key of Object.keys(valid)) expect(named, name).toContain(key);

      // A misspelt key where a client would write it: inside the wrapper, in carry_over, in a bulk item.
      const typo = await f.admin.request(r.method, path, { json: misspelt });
      const messages: string[] = itemised ? (typo.body.results?.[0]?.errors ?? []) : (typo.body.errors ?? []);
      expect(itemised ? typo.body.results?.[0]?.status : typo.status, `${name}: ${typo.text}`).toBe(422);
      expect(
        messages.some((m) => /has an unknown key '\w+': did you mean '\w+'\?/.test(m) && m.includes(`did you mean '${meant}'?`)),
        `${name}: ${messages.join(' | ')}`,
      ).toBe(true);

      if (witness) {
        const after = await f.admin.get(witness);
        expect(after.status, `${name}: ${witness}`).toBe(200);
        expect(after.text, `${name}: ${witness} unchanged`).toBe(before!.text);
      }

      // What a GET answers, sent back: taken, its read-only fields ignored.
      const answer = await answerOf(r, f, path);
      if (answer) {
        const { wrapper, body } = answer;
        const json = r.path.endsWith('/bulk')
          ? { items: [{ [wrapper]: body }, { id: body.id, [wrapper]: body }] }
          : { [wrapper]: body };
        const res = await f.admin.request(r.method, path, { json });
        if (r.path.endsWith('/bulk')) {
          expect(res.status, `${name}: ${res.text}`).toBe(200);
          expect(
            res.body.results.map((x: Json) => x.status),
            `${name}: ${res.text}`,
          ).toEqual([201, 200]);
          expect(res.body.results[0].issue.id).not.toBe(body.id);
          expect(res.body.results[0].issue.labels).toEqual(body.labels);
        } else if (r.method === 'POST') {
          expect(res.status, `${name}: ${res.text}`).toBe(201);
          const made = wrapper === 'account' ? res.body.account : res.body;
          expect(made.id, name).not.toEqual(body.id);
          if ('labels' in body) expect(made.labels, name).toEqual(body.labels);
        } else {
          expect(res.status, `${name}: ${res.text}`).toBe(200);
          // Sent back unchanged, an update changes nothing but updated_at.
          const reread = await f.admin.get(path);
          const shown = r.path === '/api/v1/me' ? reread.body.account : reread.body;
          expect(sansUpdated(shown), name).toEqual(sansUpdated(body));
        }
      }
      covered.push(name);
    }
    expect(covered).toEqual(bodied.map(label));
    expect(covered.length).toBeGreaterThanOrEqual(29);
  }, 300_000);

  it('a completion whose carry_over misspells its target completes nothing: the sprint stays active, its issues where they were', async () => {
    const f = await fixture();
    const sprint = `${f.p}/sprints/${f.active.id}`;
    const moved = await f.admin.patch(`${f.p}/issues/${f.backlogIssue.id}`, { issue: { sprint_id: f.active.id } });
    expect(moved.status, moved.text).toBe(200);
    for (const body of [
      { carry_over: { sprint: f.planning.id } },
      { carry_over: {} },
      { carry_over: { sprint_id: f.planning.id }, carryOver: 1 },
    ]) {
      const res = await f.admin.post(`${sprint}/complete`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const refused = await f.admin.post(`${sprint}/complete`, { carry_over: { sprint: f.planning.id } });
    expect(refused.body.errors).toEqual([
      'carry_over.sprint_id is required',
      "carry_over has an unknown key 'sprint': did you mean 'sprint_id'? (known: sprint_id)",
    ]);
    expect((await f.admin.get(sprint)).body.status).toBe('active');
    expect((await f.admin.get(`${sprint}/issues`)).body.map((i: Json) => i.id)).toEqual([f.backlogIssue.id]);
    // Named, the target takes the open issues.
    const done = await f.admin.post(`${sprint}/complete`, { carry_over: { sprint_id: f.planning.id } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('completed');
    expect((await f.admin.get(`${f.p}/sprints/${f.planning.id}/issues?per_page=100`)).body.map((i: Json) => i.id)).toContain(
      f.backlogIssue.id,
    );
  }, 120_000);

  it('a sprint created with startDate is refused, not created without dates', async () => {
    const f = await fixture();
    const before = (await f.admin.get(`${f.p}/sprints?per_page=100`)).text;
    const res = await f.admin.post(`${f.p}/sprints`, {
      sprint: { name: 'Dated', startDate: '2026-03-02', endDate: '2026-03-13' },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      "sprint has unknown keys 'startDate' (did you mean 'start_date'?), 'endDate' (did you mean 'end_date'?) (known: name, description, start_date, end_date, sprint_lead_id)",
    ]);
    expect((await f.admin.get(`${f.p}/sprints?per_page=100`)).text).toBe(before);
    // Read-only fields are never set: a status or a count sent is ignored.
    const made = await f.admin.post(`${f.p}/sprints`, {
      sprint: { name: 'Dated', start_date: '2026-03-02', status: 'completed', issues_count: 9 },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ status: 'planning', issues_count: 0, start_date: '2026-03-02' });
  }, 60_000);
});

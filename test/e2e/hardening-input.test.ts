/**
 * Hostile input, property-based (fast-check), driven by THE route table and its zod schemas: the
 * schema a route declares is the oracle. A body the schema refuses must be a 422 `{errors}` that
 * writes nothing; any other body may succeed or be refused, never a 5xx; bad path ids are 404 and
 * bad query values 422. Every response is also held against the OpenAPI document (contract setup):
 * a status a route does not declare, or a body of the wrong shape, fails the property.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { routes, type Route } from '../../lib/routes.ts';
import { PaginationQuery } from '../../lib/schemas/common.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { valueNestsDeeper } from '../../lib/vocabulary/nesting.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

/** Runs per route and property: enough to meet every generator, small enough for two shared cores. */
const RUNS = Number(process.env.HARDENING_RUNS ?? 12);

interface Fixture {
  orgId: number;
  client: ApiClient;
  project: Record<string, any>;
  sprint: Record<string, any>;
  issue: Record<string, any>;
  backlogIssue: Record<string, any>;
  comment: Record<string, any>;
  webhook: Record<string, any>;
  label: Record<string, any>;
  state: Record<string, any>;
  field: Record<string, any>;
}

/**
 * A client that waits out its own rate limit: shrinking a counterexample can send hundreds of
 * requests with one token, and a 429 must not hide the failure being shrunk.
 */
function patientClient(token: string): ApiClient {
  const client = apiClient(gateway.baseUrl, token);
  const request: ApiClient['request'] = async (method, path, options) => {
    for (;;) {
      const res = await client.request(method, path, options);
      if (res.status !== 429) return res;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
  };
  return {
    request,
    get: (path, o) => request('GET', path, o),
    post: (path, json, o) => request('POST', path, { ...o, json }),
    patch: (path, json, o) => request('PATCH', path, { ...o, json }),
    put: (path, json, o) => request('PUT', path, { ...o, json }),
    delete: (path, o) => request('DELETE', path, o),
  };
}

async function fixture(): Promise<Fixture> {
  const org = await newOrganisation();
  const client = patientClient(org.admin.token);
  const made = async (path: string, body: unknown) => {
    const res = await client.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const project = await made('/api/v1/projects', { project: { name: 'Input', prefix: randomPrefix() } });
  const pp = `/api/v1/projects/${project.id}`;
  const sprint = await made(`${pp}/sprints`, { sprint: { name: 'Sprint', start_date: '2026-01-05', end_date: '2026-01-16' } });
  const issue = await made(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: 'Issue', story_points: 3 } });
  const backlogIssue = await made(`${pp}/issues`, { issue: { title: 'Backlog issue' } });
  const comment = await made(`${pp}/sprints/${sprint.id}/issues/${issue.id}/comments`, { comment: { body: 'Comment' } });
  const webhook = await made('/api/v1/webhooks', {
    // A target on this machine: nothing a test makes is ever sent off it.
    webhook: { url: 'http://127.0.0.1:65535/in', events: ['project.deleted'] },
  });
  const label = await made(`${pp}/labels`, { label: { name: 'Label' } });
  const state = await made(`${pp}/states`, { state: { name: 'State', category: 'todo' } });
  const field = await made(`${pp}/fields`, { field: { name: 'Field', type: 'select', options: [{ name: 'one' }] } });
  relatedKey = String(issue.issue_number);
  return { orgId: org.orgId, client, project, sprint, issue, backlogIssue, comment, webhook, label, state, field };
}

/** Everything a write could change, read over HTTP: equal before and after means nothing was written. */
async function snapshot(fx: Fixture) {
  const pp = `/api/v1/projects/${fx.project.id}`;
  const sp = `${pp}/sprints/${fx.sprint.id}`;
  const reads = [
    '/api/v1/projects?per_page=100',
    '/api/v1/accounts?per_page=100',
    `${pp}/sprints?per_page=100`,
    sp,
    `${sp}/issues?per_page=100`,
    `${pp}/issues?per_page=100`,
    `${sp}/issues/${fx.issue.id}/comments?per_page=100`,
    `/api/v1/comments/${fx.comment.id}`,
    '/api/v1/webhooks?per_page=100',
    `${pp}/labels?per_page=100`,
    `${pp}/states`,
    `${pp}/fields`,
  ];
  const out = await Promise.all(reads.map((path) => fx.client.get(path)));
  return out.map((r) => ({ status: r.status, body: r.body, total: r.headers.get('x-total-count') }));
}

function pathFor(route: Route, fx: Fixture): string {
  const inSprint = route.path.includes('{sprint_id}');
  return (
    route.path
      .replace('{project_id}', String(fx.project.id))
      .replace('{sprint_id}', String(fx.sprint.id))
      .replace('{issue_id}', String(inSprint ? fx.issue.id : fx.backlogIssue.id))
      .replace('{webhook_id}', String(fx.webhook.id))
      .replace('{label_id}', String(fx.label.id))
      .replace('{state_id}', String(fx.state.id))
      .replace('{field_id}', String(fx.field.id))
      .replace('{delivery_id}', 'msg_none')
      // Well formed, naming no entry: only the bad ids put in its place are tried.
      .replace('{activity_id}', '1-1-1')
      .replace('{issue_key}', String(fx.backlogIssue.issue_number))
      .replace('{id}', () => {
        if (route.path.startsWith('/api/v1/comments')) return String(fx.comment.id);
        if (route.path.includes('/issues/{id}')) return String(inSprint ? fx.issue.id : fx.backlogIssue.id);
        if (route.path.includes('/sprints/{id}')) return String(fx.sprint.id);
        return String(fx.project.id);
      })
  );
}

function wrapperOf(route: Route): { wrapper: string; keys: string[] } {
  const outer = route.operation.body as z.ZodObject;
  const wrapper = Object.keys(outer.shape)[0]!;
  let inner = outer.shape[wrapper] as { shape?: Record<string, unknown>; def?: { innerType?: unknown; in?: unknown } };
  while (!inner.shape && (inner.def?.innerType || inner.def?.in)) inner = (inner.def.innerType ?? inner.def.in) as typeof inner;
  return { wrapper, keys: Object.keys(inner.shape ?? {}) };
}

/**
 * A character free text refuses (lib/schemas/common.ts): a C0 control other than tab and newline
 * (a bare CR included), or half of a surrogate pair.
 */
const refusedCharacter: fc.Arbitrary<string> = fc.oneof(
  fc
    .integer({ min: 0, max: 0x1f })
    .filter((c) => c !== 0x09 && c !== 0x0a)
    .map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
);

/** Values that break one field: wrong types, sizes, ranges, encodings and calendars. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'x'.repeat(256),
    'x'.repeat(65_536),
    'y'.repeat(100_001),
    -1,
    0,
    1.5,
    1001,
    2 ** 53,
    1e308,
    -0,
    true,
    [],
    {},
    '2024-02-30',
    '2023-13-01',
    '2024-1-1',
    '2024-02-29T00:00:00Z',
    'tomorrow',
    'ftp://example.com',
    'javascript:alert(1)',
    'ADMIN',
    'todo ',
  ),
  fc.string({ unit: 'binary', maxLength: 300 }),
  // Text downstream tools choke on (refused), and the controls text may hold (accepted).
  fc
    .tuple(fc.string({ maxLength: 20 }), refusedCharacter, fc.string({ maxLength: 20 }))
    .map(([before, bad, after]) => `x${before}${bad}${after}y`),
  fc.constantFrom('tab\there', 'two\nlines', 'crlf\r\nline', '\u00e9t\u00e9 \ud83d\ude00'),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  // Finite only: JSON has no Infinity (JSON.stringify sends null, which is a different input).
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.nat(12).map((depth) => {
    let v: unknown = 'deep';
    for (let i = 0; i < 50 * depth + 1; i++) v = i % 2 ? { v } : [v];
    return v;
  }),
);

/** Bodies of every hostile kind for one route: random JSON, broken wrappers, one field broken. */
function hostileBody(route: Route): fc.Arbitrary<unknown> {
  const { wrapper, keys } = wrapperOf(route);
  // Marking notifications read: their ids, or all; no resource.
  if (route.path === '/api/v1/me/notifications/read') {
    return fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ notifications: fc.oneof(fc.constant(null), hostileValue, fc.array(hostileValue, { maxLength: 120 })) }),
      fc.record({ all: hostileValue }),
      fc.record({ notifications: fc.array(fc.string({ maxLength: 70 }), { maxLength: 3 }), all: fc.constant(true) }),
    );
  }
  // A bulk write's items: each an issue body (of a create or an update), one of them hostile.
  if (wrapper === 'items') {
    const item = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc
        .record({
          key: fc.constantFrom('title', 'status', 'story_points', 'assignee_id', 'labels', 'position', 'parent_id'),
          value: hostileValue,
        })
        .map(({ key, value }) => ({ issue: { title: 'Made issue', [key]: value } })),
      fc.record({ id: hostileValue, version: hostileValue }).map((ids) => ({ ...ids, issue: { title: 'Made issue' } })),
    );
    return fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ items: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(item, { maxLength: 5 })) }),
    );
  }
  return fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record({ [wrapper]: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(fc.jsonValue({ maxDepth: 2 }))) }),
    fc
      .record({
        key: fc.constantFrom(...keys),
        // Now and then the field keeps its valid value, so that only the extra keys are hostile: a
        // route whose every field refuses every hostile value (a relation's type and issue key)
        // still has bodies its schema accepts.
        value: fc.oneof({ weight: 5, arbitrary: hostileValue.map((v) => ({ v })) }, { weight: 1, arbitrary: fc.constant(null) }),
        extra: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      })
      .map(({ key, value, extra }) => {
        const valid = validFields(wrapper, route.method === 'POST');
        return { [wrapper]: { ...valid, ...extra, [key]: value ? value.v : valid[key] } };
      }),
  );
}

/** The key of an issue a relation may name: the sprint issue of the latest fixture (paths name the backlog issue's). */
let relatedKey = 'XX-1';

function validFields(wrapper: string, create: boolean): Record<string, unknown> {
  switch (wrapper) {
    case 'project':
      return create ? { name: 'Made', prefix: randomPrefix() } : { name: 'Renamed' };
    case 'sprint':
      return { name: 'Made sprint' };
    case 'issue':
      return { title: 'Made issue' };
    case 'comment':
      return { body: 'Made comment' };
    case 'account':
      return { name: 'Made', email: `made-${Math.random().toString(36).slice(2)}@example.com` };
    case 'webhook':
      return create ? { url: 'http://127.0.0.1:65535/made', events: ['project.deleted'] } : { active: true };
    case 'label':
      return { name: `made-${Math.random().toString(36).slice(2, 8)}` };
    case 'state':
      return create
        ? { name: `made-${Math.random().toString(36).slice(2, 8)}`, category: 'in_progress' }
        : { name: `renamed-${Math.random().toString(36).slice(2, 8)}` };
    case 'field':
      return create
        ? { name: `made-${Math.random().toString(36).slice(2, 8)}`, type: 'text' }
        : { name: `renamed-${Math.random().toString(36).slice(2, 8)}` };
    case 'relation':
      return { type: 'relates_to', issue_key: relatedKey };
    case 'attachment':
      return { name: 'screenshot.png', content_type: 'image/png', size: 1024 };
    case 'items':
      return [{ issue: { title: 'Made issue' } }] as unknown as Record<string, unknown>;
    case 'github':
      return { repository: `made-${Math.random().toString(36).slice(2, 8)}/repo` };
    case 'organisation':
      return { trash_retention_days: 10 };
    case 'subscription':
      return { query: 'label:made' };
    default:
      throw new Error(`no valid payload for "${wrapper}"`);
  }
}

/** Where the resource a write answered with is read back (an issue update may have moved it). */
function readBackPath(wrapper: string, resource: Record<string, any>): string {
  const pp = `/api/v1/projects/${resource.project_id}`;
  switch (wrapper) {
    case 'project':
      return `/api/v1/projects/${resource.id}`;
    case 'sprint':
      return `${pp}/sprints/${resource.id}`;
    case 'webhook':
      return `/api/v1/webhooks/${resource.id}`;
    case 'organisation':
      return '/api/v1/organisation';
    case 'subscription':
      return '/api/v1/me/subscriptions';
    case 'github':
      return `${pp}/github`;
    case 'label':
      return `${pp}/labels/${resource.id}`;
    case 'state':
      return `${pp}/states/${resource.id}`;
    case 'field':
      return `${pp}/fields/${resource.id}`;
    case 'issue':
      return resource.sprint_id === null
        ? `${pp}/issues/${resource.id}`
        : `${pp}/sprints/${resource.sprint_id}/issues/${resource.id}`;
    default:
      return `/api/v1/comments/${resource.id}`;
  }
}

/**
 * JSON whose keys could reach an object's prototype: the body parser refuses it outright (400),
 * before any validation. fast-check's dictionaries do generate such keys.
 */
const prototypeKeys = (body: unknown) => /"__proto__"|"constructor"|"prototype"/.test(JSON.stringify(body));

function expectNoServerError(res: ApiResponse, what: string) {
  expect(res.status, `${what} -> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
}

// A completion's optional body holds a transition's options, not a resource: test/e2e/sprint-outcomes.test.ts covers it.
// Writes only: the search's POST reads, its body a selection (test/e2e/search.test.ts sends it hostile bodies).
// An import's body is the uploaded file itself, not a JSON resource: its own property below.
const writes = routes.filter(
  (r) =>
    r.auth &&
    r.access === 'write' &&
    r.operation.body &&
    !r.operation.optionalBody &&
    r.path !== '/mcp' &&
    'shape' in r.operation.body,
);
const uploads = routes.filter((r) => r.auth && r.access === 'write' && r.operation.body && !('shape' in r.operation.body));

describe('hostile bodies on every write', () => {
  // The refusals share one fixture: none of them writes, which each checks against the same snapshot.
  // Each route sends with a token of its own, made with the fixture before its snapshot (each token
  // has its own rate-limit bucket: the routes' refusals and snapshots together are more requests
  // than one token's burst, and its 429s were waited out, a second each); but for a comment's
  // update, which only its author may make (the fixture's admin, whose token they share).
  let refusals: Promise<{ fx: Fixture; tokens: string[]; before: Awaited<ReturnType<typeof snapshot>> }> | undefined;
  const refusalFixture = () =>
    (refusals ??= fixture().then(async (fx) => {
      const tokens: string[] = [];
      for (const [i] of writes.entries()) {
        const email = `refusals-${i}-${Math.random().toString(36).slice(2)}@example.com`;
        tokens.push((await createAccountInOrg(fx.orgId, { name: `Refusals ${i}`, email, role: 'admin' })).token);
      }
      return { fx, tokens, before: await snapshot(fx) };
    }));
  const refusalsOf = async (route: Route) => {
    const { fx, tokens, before } = await refusalFixture();
    if (route.path.startsWith('/api/v1/comments/')) return { fx, before };
    return { fx: { ...fx, client: patientClient(tokens[writes.indexOf(route)]!) }, before };
  };

  it.each(writes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: what the schema refuses is 422 {errors} and writes nothing',
    async (_name, route) => {
      const { fx, before } = await refusalsOf(route);
      const path = pathFor(route, fx);
      const schema = route.operation.body!;
      await fc.assert(
        fc.asyncProperty(
          hostileBody(route).filter((body) => !schema.safeParse(body).success),
          async (body) => {
            const res = await fx.client.request(route.method, path, { json: body });
            expectNoServerError(res, `${route.method} ${path}`);
            if (prototypeKeys(body) && res.status === 400) return;
            expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(422);
            expect(res.body.errors.length).toBeGreaterThan(0);
          },
        ),
        { numRuns: RUNS },
      );
      expect(await snapshot(fx)).toEqual(before);
    },
    120_000,
  );

  // A bulk write answers results, not a resource: its own property follows.
  const accepting = writes.filter((r) => !r.path.endsWith('/bulk'));
  it.each(accepting.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: whatever the schema accepts never fails with a 5xx, and a success reads back as sent',
    async (_name, route) => {
      const fx = await fixture();
      const path = pathFor(route, fx);
      const { wrapper } = wrapperOf(route);
      const schema = route.operation.body!;
      await fc.assert(
        fc.asyncProperty(
          hostileBody(route).filter((body) => schema.safeParse(body).success),
          async (body) => {
            const res = await fx.client.request(route.method, path, { json: body });
            expectNoServerError(res, `${route.method} ${path}`);
            if (prototypeKeys(body) && res.status === 400) return;
            expect([200, 201, 404, 422], res.text.slice(0, 300)).toContain(res.status);
            // An account's answer carries its token; a relation names its other issue by `issue`, not
            // by the `issue_key` sent (test/e2e/relations.test.ts reads relations back); an attachment
            // is read back as a redirect to its file (test/e2e/attachments.test.ts).
            // Marking notifications read answers a count, not a resource.
            if (res.status >= 300 || ['account', 'relation', 'attachment', 'notifications'].includes(wrapper)) return;
            // What was stored is what the schema made of the input (trimmed names, the same text),
            // in the answer and when read back.
            const parsed = (schema.parse(body) as Record<string, Record<string, unknown>>)[wrapper]!;
            const stored = await fx.client.get(readBackPath(wrapper, res.body));
            expect(stored.status).toBe(200);
            for (const [key, value] of Object.entries(parsed)) {
              if (typeof value !== 'string') continue;
              // A webhook's filter is answered in its canonical form (test/e2e/webhook-filters.test.ts).
              if (wrapper === 'webhook' && key === 'filter') continue;
              // So is a followed query (docs/notifications.md).
              if (wrapper === 'subscription' && key === 'query') continue;
              if (key in res.body) expect(res.body[key], key).toBe(value);
              if (key in stored.body) expect(stored.body[key], key).toBe(value);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    120_000,
  );

  it('answers 413 {error} to a body over 1 MiB and 415 to a non-JSON one, writing nothing', async () => {
    const fx = await fixture();
    const before = await snapshot(fx);
    const path = `/api/v1/projects/${fx.project.id}/sprints/${fx.sprint.id}/issues`;
    const big = await fx.client.post(path, { issue: { title: 'Big', description: 'z'.repeat(1024 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: expect.any(String) });
    const text = await fx.client.request('POST', path, { raw: 'title=x', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    const broken = await fx.client.request('POST', path, {
      raw: '{"issue":{"title":"x"',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(await snapshot(fx)).toEqual(before);
  });

  it.each(writes.filter((r) => r.path.endsWith('/bulk')).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: whatever the schema accepts never fails with a 5xx, and every item has its own answer',
    async (_name, route) => {
      const fx = await fixture();
      const path = pathFor(route, fx);
      const schema = route.operation.body!;
      await fc.assert(
        fc.asyncProperty(
          hostileBody(route).filter((body) => schema.safeParse(body).success),
          async (body) => {
            const res = await fx.client.request(route.method, path, { json: body });
            expectNoServerError(res, `${route.method} ${path}`);
            if (prototypeKeys(body) && res.status === 400) return;
            // Nested past the limit, the whole body is refused before any item is read (docs/limits.md).
            if (valueNestsDeeper(body) && res.status === 422) return;
            expect(res.status, res.text.slice(0, 300)).toBe(200);
            const items = (body as { items: unknown[] }).items;
            expect(res.body.results).toHaveLength(items.length);
            for (const result of res.body.results as { status: number }[]) {
              expect([200, 201, 404, 409, 412, 422], JSON.stringify(result).slice(0, 300)).toContain(result.status);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    120_000,
  );
});

describe('hostile uploads', () => {
  it('covers the import upload, the one write whose body is a raw file', () => {
    expect(uploads.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/imports']);
  });

  it('POST /api/v1/imports: hostile files, content types and query values never 5xx, a bad query is 422 {errors}, a dry run writes nothing', async () => {
    const fx = await fixture();
    const before = await snapshot(fx);
    const queryValue = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        '',
        '0',
        '-1',
        '1e3',
        '01',
        String(fx.project.id),
        '99999999',
        'jira-csv',
        'github-json',
        'JIRA-CSV',
        'TRUE',
      ),
    );
    const file = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .array(fc.record({ number: hostileValue, title: hostileValue, state: hostileValue, labels: hostileValue }), {
          maxLength: 4,
        })
        .map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '',
        '\u0000',
        'Summary,Issue key\n"unterminated,X-1\n',
        'Summary\n' + 'x,'.repeat(5000),
        '[',
        '{"__proto__":{}}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            format: fc.oneof(queryValue, fc.constantFrom('jira-csv', 'github-json')),
            project_id: fc.oneof(queryValue, fc.constant(String(fx.project.id))),
            // Never a real run: what is accepted runs dry, so that "nothing written" holds.
            dry_run: fc.oneof(
              queryValue.filter((v) => v !== 'false'),
              fc.constant('true'),
            ),
            extra: fc.constantFrom('x', '1'),
          },
          { requiredKeys: ['dry_run'] },
        ),
        fc.constantFrom('text/csv', 'application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data', ''),
        file,
        async (query, contentType, raw) => {
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          const path = `/api/v1/imports?${qs}`;
          const res = await fx.client.request('POST', path, { raw, headers: contentType ? { 'Content-Type': contentType } : {} });
          expectNoServerError(res, `POST ${path}`);
          expect([202, 400, 404, 413, 415, 422], `POST ${path}: ${res.text.slice(0, 300)}`).toContain(res.status);
          if (res.status >= 400) expect(typeof res.body === 'object' && res.body !== null, res.text).toBe(true);
          if ('extra' in query || query.dry_run !== 'true') expect(res.status, `POST ${path}`).not.toBe(202);
          if (res.status === 422) expect(res.body.errors.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: RUNS * 5 },
    );
    expect(await snapshot(fx)).toEqual(before);
  }, 180_000);
});

describe('hostile path ids and query values', () => {
  const withIds = routes.filter((r) => r.auth && /\{\w+\}/.test(r.path));

  it('answers 404 {error} to every bad or unknown path id on every route', async () => {
    const fx = await fixture();
    const before = await snapshot(fx);
    const badId = fc.oneof(
      // Not an id, and not a dot segment (the client would resolve those away before sending).
      fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/^[1-9]\d{0,15}$/.test(s.trim()) && s !== '.' && s !== '..'),
      fc.constantFrom('0', '-1', '1.5', '1e3', '0x10', '01', ' 1', '9007199254740993', '99999999999999999999', '%00', 'null'),
      fc.integer({ min: 10_000_000, max: 2 ** 40 }).map(String), // well-formed, but nobody's
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withIds), badId, fc.nat(8), async (route, id, which) => {
        const good = pathFor(route, fx).split('/');
        const slots = route.path
          .split('/')
          .map((s, i) => (/^\{\w+\}$/.test(s) ? i : -1))
          .filter((i) => i >= 0);
        good[slots[which % slots.length]!] = encodeURIComponent(id);
        const path = good.join('/');
        const body = route.operation.optionalBody
          ? {}
          : route.operation.body
            ? // A body the route would take (a create's, with what a create requires): only the id may refuse it.
              { [wrapperOf(route).wrapper]: validFields(wrapperOf(route).wrapper, route.method === 'POST') }
            : undefined;
        const res = await fx.client.request(route.method, path, { json: body });
        expectNoServerError(res, `${route.method} ${path}`);
        expect(res.status, `${route.method} ${path}: ${res.text}`).toBe(404);
        // An issue of the project named under a list it is not in (a sprint id nobody has): the 404 says where it is.
        if ('location' in res.body)
          expect(res.body).toEqual({ error: expect.any(String), issue_key: expect.any(String), location: expect.any(String) });
        else expect(res.body).toEqual({ error: expect.any(String) });
      }),
      { numRuns: RUNS * 10 },
    );
    expect(await snapshot(fx)).toEqual(before);
  }, 180_000);

  it('answers 200 or 422 {errors} to any page, per_page and cursor on every list', async () => {
    const fx = await fixture();
    const lists = routes.filter((r) => r.auth && r.method === 'GET' && r.operation.success.list);
    const queryValue = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer({ min: -1000, max: 1_000_000_000 }).map(String),
      fc.constantFrom('', '0', '1', '100', '101', '1e2', '0x10', '1.0', ' 5', '-0', '9'.repeat(40), '%', '[]'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.record(
          { page: queryValue, per_page: queryValue, cursor: fc.oneof(fc.string(), fc.base64String()) },
          { requiredKeys: [] },
        ),
        async (route, query) => {
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          const path = `${pathFor(route, fx)}${qs ? `?${qs}` : ''}`;
          const res = await fx.client.get(path);
          expectNoServerError(res, `GET ${path}`);
          expect([200, 422], `GET ${path}: ${res.text.slice(0, 200)}`).toContain(res.status);
          const { cursor: _cursor, ...pageQuery } = query as Record<string, string>;
          if (!PaginationQuery.safeParse(pageQuery).success) expect(res.status, `GET ${path}`).toBe(422);
          if (res.status === 422) expect(res.body.errors.length).toBeGreaterThan(0);
          else expect(Array.isArray(res.body)).toBe(true);
        },
      ),
      { numRuns: RUNS * 10 },
    );
  }, 180_000);
});

/** The free-text fields of each body wrapper, and whether each is multi-line (CRLF kept). */
const textFields: Record<string, Record<string, 'line' | 'multiline'>> = {
  project: { name: 'line', description: 'multiline' },
  sprint: { name: 'line', description: 'multiline' },
  issue: { title: 'line', description: 'multiline' },
  comment: { body: 'multiline' },
  account: { name: 'line' },
  label: { name: 'line', description: 'multiline' },
};
const controlMessage = 'must not contain control characters (other than tab and newline)';
const surrogateMessage = 'must be valid Unicode text (it holds an unpaired surrogate)';

describe('text that downstream tools choke on', () => {
  // PATCH /me takes no free text: an account's name is read-only there, and a handle is a rule of
  // its own (test/e2e/handles.test.ts).
  const textWrites = writes.filter((r) => textFields[wrapperOf(r).wrapper] && r.path !== '/api/v1/me');
  // The refused characters' property shares one fixture: every body it sends must be refused.
  let refusals: Promise<Fixture> | undefined;
  // So do the refusals of each field: each compares the snapshots taken around its own refusals,
  // keeps text under a name of its route's own (a label's name is unique in its project), and
  // sends with a token of its own (each token has its own rate-limit bucket), but for a comment's
  // update, which only its author may make (the fixture's admin, whose token they share).
  let fieldRefusals: Promise<Fixture> | undefined;
  const fieldsFixture = async (route: Route): Promise<Fixture> => {
    const fx = await (fieldRefusals ??= fixture());
    if (route.path.startsWith('/api/v1/comments/')) return fx;
    const tag = Math.random().toString(36).slice(2);
    const admin = await createAccountInOrg(fx.orgId, { name: 'Text Admin', email: `text-${tag}@example.com`, role: 'admin' });
    return { ...fx, client: patientClient(admin.token) };
  };

  it('covers every write that takes text: projects, sprints, issues in a sprint and in the backlog, comments, accounts, labels', () => {
    const covered = new Set(textWrites.map((r) => wrapperOf(r).wrapper));
    expect([...covered].sort()).toEqual(['account', 'comment', 'issue', 'label', 'project', 'sprint']);
    expect(
      textWrites.filter((r) => r.path.includes('/issues') && !r.path.includes('comments') && !r.path.includes('{sprint_id}'))
        .length,
    ).toBeGreaterThan(0);
  });

  it.each(textWrites.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: refuses NUL, ESC, a bare CR and a lone surrogate in each text field (422 {errors}), keeps tab, newline and CRLF where allowed',
    async (_name, route) => {
      const fx = await fieldsFixture(route);
      const path = pathFor(route, fx);
      const { wrapper } = wrapperOf(route);
      const send = (fields: Record<string, unknown>) =>
        fx.client.request(route.method, path, {
          json: { [wrapper]: { ...validFields(wrapper, route.method === 'POST'), ...fields } },
        });
      for (const [field, kind] of Object.entries(textFields[wrapper]!)) {
        const before = await snapshot(fx);
        for (const [bad, message] of [
          ['nul\u0000inside', controlMessage],
          ['\u001b[31mred', controlMessage],
          ['bare\rreturn', controlMessage],
          ['half \ud83d of a pair', surrogateMessage],
          ['\ude00 low first', surrogateMessage],
        ] as const) {
          const res = await send({ [field]: bad });
          expect(res.status, `${field}=${JSON.stringify(bad)}: ${res.text}`).toBe(422);
          expect(res.body.errors).toContain(`${field} ${message}`);
        }
        expect(await snapshot(fx), `${field}: nothing written`).toEqual(before);

        const kept = `${kind === 'multiline' ? 'tab\there\nnewline\r\nCRLF \ud83d\ude00' : 'tab\there\nnewline \ud83d\ude00'} ${route.method}`;
        const ok = await send({ [field]: kept });
        expect(ok.status, `${field}: ${ok.text}`).toBeLessThan(300);
        if (wrapper !== 'account') expect(ok.body[field]).toBe(kept);
        else expect(ok.body.account[field]).toBe(kept);
        if (kind === 'line') {
          const crlf = await send({ [field]: 'one\r\ntwo' });
          expect(crlf.status, `${field} refuses CRLF on one line`).toBe(422);
        }
      }
    },
    120_000,
  );

  it.each(textWrites.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: any refused character anywhere in a text field is 422 {errors} naming that field',
    async (_name, route) => {
      const fx = await (refusals ??= fixture());
      const path = pathFor(route, fx);
      const { wrapper } = wrapperOf(route);
      const fields = Object.keys(textFields[wrapper]!);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...fields),
          fc.string({ maxLength: 30 }),
          refusedCharacter,
          fc.string({ maxLength: 30 }),
          async (field, before, bad, after) => {
            // Between letters: names are trimmed, and a control that is also whitespace (VT, FF,
            // CR) at either end is trimmed away rather than refused.
            const value = `x${before}${bad}${after}y`;
            const body = { [wrapper]: { ...validFields(wrapper, route.method === 'POST'), [field]: value } };
            const res = await fx.client.request(route.method, path, { json: body });
            expect(res.status, JSON.stringify(value)).toBe(422);
            expect(
              res.body.errors.some((e: string) => e.startsWith(`${field} `)),
              res.text,
            ).toBe(true);
          },
        ),
        { numRuns: RUNS },
      );
    },
    120_000,
  );
});

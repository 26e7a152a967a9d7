import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, responseObservers, startGateway } from '../support/api.ts';
import { expectErrorShape } from '../support/error-bodies.ts';

let gateway: Awaited<ReturnType<typeof startGateway>>;
beforeAll(async () => {
  gateway = await startGateway();
  responseObservers.push(expectErrorShape);
});
afterAll(async () => {
  responseObservers.splice(responseObservers.indexOf(expectErrorShape), 1);
  await gateway.close();
});

const TOKEN = /^stk_[A-Za-z0-9_-]{43}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function orgWithClients() {
  const org = await newOrganisation();
  return { org, admin: apiClient(gateway.baseUrl, org.admin.token), member: apiClient(gateway.baseUrl, org.member.token) };
}

let seq = 0;
const email = (name = 'user') => `${name}-${Date.now().toString(36)}-${seq++}@example.com`;

describe('GET /me', () => {
  it('answers the calling account and its organisation, and nothing secret', async () => {
    const { org, member } = await orgWithClients();
    const res = await member.get('/api/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      account: {
        id: org.member.id,
        name: 'Mo Member',
        email: expect.stringMatching(/^member-.*@example\.com$/),
        handle: null,
        role: 'member',
        created_at: expect.stringMatching(DATE_TIME),
      },
      organisation: { id: org.orgId, name: expect.stringMatching(/^Org /), created_at: expect.stringMatching(DATE_TIME) },
      unread_notifications: 0,
    });
    expect(res.text).not.toContain('token');
    // The token and its bucket, then the account with its organisation and its inbox's count in one BatchGet.
    expect(res.dbCalls).toBeLessThanOrEqual(2);
  });
});

describe('POST /me/token', () => {
  it('answers 201 {"token"} with a new token; the old one is refused on the very next request', async () => {
    const { org } = await orgWithClients();
    const old = apiClient(gateway.baseUrl, org.admin.token);
    const res = await old.post('/api/v1/me/token');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['token']);
    expect(res.body.token).toMatch(TOKEN);
    expect(res.body.token).not.toBe(org.admin.token);
    expect(res.dbCalls).toBeLessThanOrEqual(4);
    const refused = await old.get('/api/v1/me');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: expect.any(String) });
    const fresh = await apiClient(gateway.baseUrl, res.body.token).get('/api/v1/me');
    expect(fresh.status).toBe(200);
    expect(fresh.body.account.id).toBe(org.admin.id);
    expect(fresh.body.account.role).toBe('admin');
  });

  it('keeps only the latest token alive, and leaves other accounts alone', async () => {
    const { org, member } = await orgWithClients();
    const first = (await apiClient(gateway.baseUrl, org.admin.token).post('/api/v1/me/token')).body.token;
    const second = (await apiClient(gateway.baseUrl, first).post('/api/v1/me/token')).body.token;
    expect((await apiClient(gateway.baseUrl, org.admin.token).get('/api/v1/me')).status).toBe(401);
    expect((await apiClient(gateway.baseUrl, first).get('/api/v1/me')).status).toBe(401);
    expect((await apiClient(gateway.baseUrl, second).get('/api/v1/me')).status).toBe(200);
    expect((await member.get('/api/v1/me')).status).toBe(200);
  });

  it('keeps the role: a regenerated member token still cannot do admin things', async () => {
    const { member } = await orgWithClients();
    const token = (await member.post('/api/v1/me/token')).body.token;
    const res = await apiClient(gateway.baseUrl, token).post('/api/v1/accounts', { account: { name: 'X', email: email() } });
    expect(res.status).toBe(403);
  });
});

describe('concurrent rotations of one token', () => {
  it('let exactly one win; the others are 401 (their token is gone), never 500, and the winner holds', async () => {
    for (let round = 0; round < 3; round++) {
      const { org, admin } = await orgWithClients();
      const results = await Promise.all([
        admin.post('/api/v1/me/token'),
        admin.post('/api/v1/me/token'),
        admin.delete('/api/v1/me/token'),
      ]);
      const statuses = results.map((r) => r.status);
      for (const status of statuses) expect([201, 204, 401, 503], statuses.join()).toContain(status);
      expect(
        statuses.filter((s) => s === 201 || s === 204),
        statuses.join(),
      ).toHaveLength(1);
      expect((await admin.get('/api/v1/me')).status).toBe(401);
      const winner = results.find((r) => r.status === 201);
      if (winner)
        expect((await apiClient(gateway.baseUrl, winner.body.token).get('/api/v1/me')).body.account.id).toBe(org.admin.id);
    }
  });
});

describe('DELETE /me/token', () => {
  it('answers 204 and the token is refused from then on; other tokens still work', async () => {
    const { admin, member } = await orgWithClients();
    const res = await member.delete('/api/v1/me/token');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.dbCalls).toBeLessThanOrEqual(4);
    const after = await member.get('/api/v1/me');
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: expect.any(String) });
    expect((await member.delete('/api/v1/me/token')).status).toBe(401);
    expect((await admin.get('/api/v1/me')).status).toBe(200);
  });
});

describe('GET /accounts', () => {
  it("lists the caller's organisation's accounts only, in id order, to members too", async () => {
    const { org, member } = await orgWithClients();
    const other = await orgWithClients();
    const res = await member.get('/api/v1/accounts');
    expect(res.status).toBe(200);
    expect(res.body.map((a: { id: number }) => a.id)).toEqual([org.admin.id, org.member.id]);
    expect(res.body[0]).toEqual({
      id: org.admin.id,
      name: 'Ada Admin',
      email: expect.any(String),
      handle: null,
      role: 'admin',
      created_at: expect.stringMatching(DATE_TIME),
    });
    expect(res.text).not.toContain('token');
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.dbCalls).toBeLessThanOrEqual(3);
    const theirs = await other.admin.get('/api/v1/accounts');
    const emails = new Set(res.body.map((a: { email: string }) => a.email));
    expect(theirs.body.some((a: { email: string }) => emails.has(a.email))).toBe(false);
  });

  it('paginates with page, per_page, Link and the X- headers', async () => {
    const { org, admin } = await orgWithClients();
    const created: number[] = [];
    for (let i = 0; i < 3; i++)
      created.push((await admin.post('/api/v1/accounts', { account: { name: `A${i}`, email: email() } })).body.account.id);
    const ids = [org.admin.id, org.member.id, ...created];
    const first = await admin.get('/api/v1/accounts?per_page=2');
    expect(first.body.map((a: { id: number }) => a.id)).toEqual(ids.slice(0, 2));
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-per-page')).toBe('2');
    expect(first.headers.get('link')).toMatch(/rel="next"/);
    expect(first.headers.get('link')).toMatch(/<[^>]*page=3[^>]*>; rel="last"/);
    const last = await admin.get('/api/v1/accounts?page=3&per_page=2');
    expect(last.body.map((a: { id: number }) => a.id)).toEqual(ids.slice(4));
    expect(last.headers.get('link')).not.toMatch(/rel="next"/);
    for (const bad of ['page=0', 'per_page=0', 'page=x', 'per_page=1.5']) {
      const res = await admin.get(`/api/v1/accounts?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.errors).toEqual([expect.stringMatching(/^(page|per_page) /)]);
    }
  });
});

describe('POST /accounts', () => {
  it('lets an admin create an account, answering the account and a first token that works', async () => {
    const { org, admin } = await orgWithClients();
    const address = email('new');
    const res = await admin.post('/api/v1/accounts', {
      account: { name: '  Nia  ', email: address.toUpperCase(), role: 'member' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['account', 'token']);
    expect(res.body.account).toEqual({
      id: expect.any(Number),
      name: 'Nia',
      email: address,
      handle: null,
      role: 'member',
      created_at: expect.stringMatching(DATE_TIME),
    });
    expect(res.body.token).toMatch(TOKEN);
    expect(res.dbCalls).toBeLessThanOrEqual(4);
    const whoami = await apiClient(gateway.baseUrl, res.body.token).get('/api/v1/me');
    expect(whoami.status).toBe(200);
    expect(whoami.body.account).toEqual(res.body.account);
    expect(whoami.body.organisation.id).toBe(org.orgId);
    expect((await admin.get('/api/v1/accounts')).headers.get('x-total-count')).toBe('3');
  });

  it('makes a member by default, and an admin when asked; the new admin can create accounts', async () => {
    const { admin } = await orgWithClients();
    const plain = await admin.post('/api/v1/accounts', { account: { name: 'Plain', email: email() } });
    expect(plain.body.account.role).toBe('member');
    const boss = await admin.post('/api/v1/accounts', { account: { name: 'Boss', email: email(), role: 'admin' } });
    expect(boss.status).toBe(201);
    expect(boss.body.account.role).toBe('admin');
    const byNewAdmin = await apiClient(gateway.baseUrl, boss.body.token).post('/api/v1/accounts', {
      account: { name: 'C', email: email() },
    });
    expect(byNewAdmin.status).toBe(201);
    // The new admin may delete projects; the new member may not.
    const project = (await admin.post('/api/v1/projects', { project: { name: 'P', prefix: randomPrefix() } })).body;
    expect((await apiClient(gateway.baseUrl, plain.body.token).delete(`/api/v1/projects/${project.id}`)).status).toBe(403);
    expect((await apiClient(gateway.baseUrl, boss.body.token).delete(`/api/v1/projects/${project.id}`)).status).toBe(204);
  });

  it('refuses members with 403 {error}, and creates nothing', async () => {
    const { admin, member } = await orgWithClients();
    const address = email();
    const res = await member.post('/api/v1/accounts', { account: { name: 'Sneaky', email: address, role: 'admin' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
    const list = await admin.get('/api/v1/accounts');
    expect(list.body).toHaveLength(2);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect((await admin.post('/api/v1/accounts', { account: { name: 'Real', email: address } })).status).toBe(201);
  });

  it('validates name, e-mail and role with 422 {errors}', async () => {
    const { admin } = await orgWithClients();
    const bad = await admin.post('/api/v1/accounts', { account: { name: ' ', email: 'nope', role: 'owner' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      errors: ["name can't be blank", 'email must be an e-mail address', 'role must be one of: admin, member'],
    });
    const missing = await admin.post('/api/v1/accounts', { account: {} });
    expect(missing.body).toEqual({ errors: ['name is required', 'email is required'] });
    for (const role of ['ADMIN', '', null, 1]) {
      const res = await admin.post('/api/v1/accounts', { account: { name: 'R', email: email(), role } });
      expect(res.status, String(role)).toBe(422);
      expect(res.body.errors).toEqual(['role must be one of: admin, member']);
    }
    const long = await admin.post('/api/v1/accounts', { account: { name: 'x'.repeat(256), email: email() } });
    expect(long.body.errors).toEqual(['name is too long (maximum is 255 characters)']);
    expect((await admin.get('/api/v1/accounts')).headers.get('x-total-count')).toBe('2');
  });

  it('refuses an e-mail already used in the organisation (any case), but not one used in another', async () => {
    const { admin } = await orgWithClients();
    const other = await orgWithClients();
    const address = email('dup');
    expect((await admin.post('/api/v1/accounts', { account: { name: 'One', email: address } })).status).toBe(201);
    const again = await admin.post('/api/v1/accounts', { account: { name: 'Two', email: address.toUpperCase() } });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ errors: ['email has already been taken'] });
    const list = await admin.get('/api/v1/accounts');
    expect(list.body).toHaveLength(3);
    expect(list.headers.get('x-total-count')).toBe('3');
    const elsewhere = await other.admin.post('/api/v1/accounts', { account: { name: 'One', email: address } });
    expect(elsewhere.status).toBe(201);
  });
});

describe('request bodies on writes', () => {
  const writes = (projectId: number) =>
    [
      ['POST', '/api/v1/accounts', 'account'],
      ['POST', '/api/v1/projects', 'project'],
      ['PATCH', `/api/v1/projects/${projectId}`, 'project'],
      ['PUT', `/api/v1/projects/${projectId}`, 'project'],
    ] as const;

  async function setup() {
    const { admin } = await orgWithClients();
    const project = (await admin.post('/api/v1/projects', { project: { name: 'Body', prefix: randomPrefix() } })).body;
    return { admin, project };
  }

  it('answers 400 {error} to malformed JSON', async () => {
    const { admin, project } = await setup();
    for (const [method, path] of writes(project.id)) {
      for (const raw of ['{', '{"project": }', "{'a': 1}", 'nope', '{"a":1}}']) {
        const res = await admin.request(method, path, { raw, headers: { 'Content-Type': 'application/json' } });
        expect(res.status, `${method} ${path} ${raw}`).toBe(400);
        expect(res.body).toEqual({ error: 'Request body is not valid JSON' });
      }
    }
  });

  it('answers 415 {error} to a body that is not declared as JSON', async () => {
    const { admin, project } = await setup();
    for (const [method, path, wrapper] of writes(project.id)) {
      const raw = JSON.stringify({ [wrapper]: { name: 'x' } });
      for (const headers of [
        { 'Content-Type': 'text/plain' },
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        {},
      ] as Record<string, string>[]) {
        const res = await admin.request(method, path, { raw, headers });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(415);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    }
  });

  it('answers 415 {error} naming utf-8 to a JSON body declared in another charset, and writes nothing', async () => {
    const { admin } = await orgWithClients();
    const name = 'Caf\u00e9';
    for (const charset of ['iso-8859-1', 'ISO-8859-1', '"windows-1252"', 'utf-16']) {
      const res = await admin.request('POST', '/api/v1/projects', {
        raw: JSON.stringify({ project: { name, prefix: randomPrefix() } }),
        headers: { 'Content-Type': `application/json; charset=${charset}` },
      });
      expect(res.status, charset).toBe(415);
      expect(res.body).toEqual({ error: expect.stringContaining('charset must be utf-8') });
      expect(res.body.error).toContain(`'${charset.replace(/"/g, '')}'`);
    }
    const projects = await admin.get('/api/v1/projects?per_page=100');
    expect(projects.body.map((p: { name: string }) => p.name)).not.toContain(name);
    // charset=utf-8 (any case) and no charset at all are read as UTF-8.
    for (const contentType of ['application/json; charset=UTF-8', 'application/json']) {
      const res = await admin.request('POST', '/api/v1/projects', {
        raw: JSON.stringify({ project: { name, prefix: randomPrefix() } }),
        headers: { 'Content-Type': contentType },
      });
      expect(res.status, contentType).toBe(201);
      expect(res.body.name).toBe(name);
    }
  });

  it('accepts JSON with a charset or a +json media type', async () => {
    const { admin } = await setup();
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON', 'application/vnd.api+json']) {
      const res = await admin.request('POST', '/api/v1/projects', {
        raw: JSON.stringify({ project: { name: 'CT', prefix: randomPrefix() } }),
        headers: { 'Content-Type': contentType },
      });
      expect(res.status, contentType).toBe(201);
    }
  });

  it('answers 413 {error} to a body over 1 MiB, and takes one just under it to validation', async () => {
    const { admin, project } = await setup();
    const MiB = 1024 * 1024;
    for (const [method, path, wrapper] of writes(project.id)) {
      const overhead = JSON.stringify({ [wrapper]: { name: '' } }).length;
      const over = JSON.stringify({ [wrapper]: { name: 'x'.repeat(MiB - overhead + 1) } });
      expect(over.length).toBe(MiB + 1);
      const res = await admin.request(method, path, { raw: over, headers: { 'Content-Type': 'application/json' } });
      expect(res.status, `${method} ${path}`).toBe(413);
      expect(res.body).toEqual({ error: expect.any(String) });
      const under = JSON.stringify({ [wrapper]: { name: 'x'.repeat(MiB - overhead) } });
      const ok = await admin.request(method, path, { raw: under, headers: { 'Content-Type': 'application/json' } });
      expect(ok.status, `${method} ${path}`).toBe(422);
    }
  });

  it('counts the 1 MiB in bytes, not characters', async () => {
    const { admin } = await setup();
    // 400,000 three-byte characters: 1.2 MB of UTF-8 in fewer than a million characters.
    const raw = JSON.stringify({ account: { name: '€'.repeat(400_000), email: email() } });
    expect(raw.length).toBeLessThan(1024 * 1024);
    const res = await admin.request('POST', '/api/v1/accounts', { raw, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(413);
  });

  it('treats an empty body as an empty object: 422 "<wrapper> is required"', async () => {
    const { admin, project } = await setup();
    for (const [method, path, wrapper] of writes(project.id)) {
      for (const headers of [{ 'Content-Type': 'application/json' }, {}] as Record<string, string>[]) {
        const res = await admin.request(method, path, { raw: '', headers });
        expect(res.status, `${method} ${path}`).toBe(422);
        expect(res.body).toEqual({ errors: [`${wrapper} is required`] });
      }
    }
  });

  it('answers 422 to JSON that is not an object', async () => {
    const { admin } = await setup();
    for (const raw of ['[]', '"project"', '42', 'null', '{"project": []}', '{"account": "x"}']) {
      for (const path of ['/api/v1/projects', '/api/v1/accounts']) {
        const res = await admin.request('POST', path, { raw, headers: { 'Content-Type': 'application/json' } });
        expect(res.status, `${path} ${raw}`).toBe(422);
        expect(res.body.errors.length).toBeGreaterThan(0);
      }
    }
  });
});

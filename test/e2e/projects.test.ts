import { describe, expect, it } from 'vitest';
import { randomPrefix, type ApiClient, type ApiResponse, useGateway, orgWithClients } from '../support/api.ts';

const gateway = useGateway();

const createProject = (client: ApiClient, fields: Record<string, unknown> = {}) =>
  client.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix(), ...fields } });

describe('projects', () => {
  it('creates a project and returns it with 201', async () => {
    const { admin } = await orgWithClients(gateway);
    const res = await createProject(admin, {
      name: '  Apollo  ',
      prefix: 'APL',
      description: 'Moon',
      documentation_url: 'https://docs.example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Apollo',
      prefix: 'APL',
      description: 'Moon',
      documentation_url: 'https://docs.example.com',
      production_url: null,
      github_repo_owner: null,
      github_repo_name: null,
      sprints_count: 0,
    });
    expect(res.body.id).toBeTypeOf('number');
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const got = await admin.get(`/api/v1/projects/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('refuses a prefix already used in the organisation, but not in another one', async () => {
    const { admin } = await orgWithClients(gateway);
    expect((await createProject(admin, { prefix: 'DUP' })).status).toBe(201);
    const again = await createProject(admin, { prefix: 'DUP' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ errors: ['prefix has already been taken'] });
    const other = await orgWithClients(gateway);
    expect((await createProject(other.admin, { prefix: 'DUP' })).status).toBe(201);
  });

  it('validates the payload and reports every problem as 422 {errors}', async () => {
    const { admin } = await orgWithClients(gateway);
    const res = await admin.post('/api/v1/projects', { project: { name: ' ', prefix: 'toolong', production_url: 'ftp://x' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        "name can't be blank",
        'prefix must be 2 to 4 uppercase letters or digits',
        'production_url must be an http(s) URL',
      ]),
    );
    const missing = await admin.post('/api/v1/projects', { name: 'No wrapper', prefix: 'NW' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ errors: ['project is required', "body has unknown keys 'name', 'prefix' (known: project)"] });
    expect((await admin.get('/api/v1/projects')).body).toEqual([]);
  });

  it('ignores read-only fields on create and update', async () => {
    const { admin } = await orgWithClients(gateway);
    const res = await createProject(admin, {
      id: 999,
      sprints_count: 7,
      github_repo_owner: 'evil',
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(999);
    expect(res.body.sprints_count).toBe(0);
    expect(res.body.github_repo_owner).toBeNull();
    const upd = await admin.patch(`/api/v1/projects/${res.body.id}`, { project: { id: 5, sprints_count: 3, name: 'Renamed' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id: res.body.id, sprints_count: 0, name: 'Renamed' });
  });

  it('accepts PUT and PATCH as partial updates, and frees the old prefix on a prefix change', async () => {
    const { admin } = await orgWithClients(gateway);
    const p = (await createProject(admin, { prefix: 'OLD', description: 'keep me' })).body;
    const put = await admin.put(`/api/v1/projects/${p.id}`, { project: { prefix: 'NEW' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ prefix: 'NEW', description: 'keep me', name: 'Apollo' });
    expect(Date.parse(put.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.updated_at));
    expect((await createProject(admin, { prefix: 'OLD' })).status).toBe(201);
    expect((await admin.patch(`/api/v1/projects/${p.id}`, { project: { prefix: 'OLD' } })).status).toBe(422);
  });

  it('lets only admins delete, and then answers 404', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const p = (await createProject(admin)).body;
    const denied = await member.delete(`/api/v1/projects/${p.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBeTypeOf('string');
    const del = await admin.delete(`/api/v1/projects/${p.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await admin.get(`/api/v1/projects/${p.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/projects/${p.id}`)).status).toBe(404);
  });

  it("answers 404 for another organisation's project, for reads and writes", async () => {
    const a = await orgWithClients(gateway);
    const b = await orgWithClients(gateway);
    const p = (await createProject(a.admin)).body;
    expect((await b.admin.get(`/api/v1/projects/${p.id}`)).status).toBe(404);
    expect((await b.admin.patch(`/api/v1/projects/${p.id}`, { project: { name: 'x' } })).status).toBe(404);
    expect((await b.admin.delete(`/api/v1/projects/${p.id}`)).status).toBe(404);
    expect((await b.admin.get('/api/v1/projects')).body.map((x: { id: number }) => x.id)).not.toContain(p.id);
    expect((await a.admin.get(`/api/v1/projects/${p.id}`)).status).toBe(200);
  });

  it('paginates with Link, X-Total-Count, X-Page and X-Per-Page, and cursors walk every item once', async () => {
    const { admin } = await orgWithClients(gateway);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createProject(admin, { name: `P${i}` })).body.id);
    const first = await admin.get('/api/v1/projects?per_page=3');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('7');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-per-page')).toBe('3');
    expect(first.body.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 3));
    const link = first.headers.get('link') ?? '';
    expect(link).toContain('rel="first"');
    expect(link).toContain('rel="last"');
    expect(link).not.toContain('rel="prev"');
    const seen: number[] = [];
    let url: string | undefined = '/api/v1/projects?per_page=3';
    while (url) {
      const res: ApiResponse = await admin.get(url);
      seen.push(...res.body.map((p: { id: number }) => p.id));
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      url = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(seen).toEqual(ids);
    const third = await admin.get('/api/v1/projects?page=3&per_page=3');
    expect(third.body.map((p: { id: number }) => p.id)).toEqual(ids.slice(6));
    expect(third.headers.get('link')).toContain('rel="prev"');
    expect((await admin.get('/api/v1/projects?page=9&per_page=3')).body).toEqual([]);
    expect((await admin.get('/api/v1/projects?per_page=1000')).headers.get('x-per-page')).toBe('100');
    for (const bad of ['page=0', 'page=abc', 'per_page=0', 'per_page=-5', 'page=1.5']) {
      const res = await admin.get(`/api/v1/projects?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.errors, bad).toBeInstanceOf(Array);
    }
  });

  it('answers 404 for a non-integer id', async () => {
    const { admin } = await orgWithClients(gateway);
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await admin.get(`/api/v1/projects/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBeTypeOf('string');
    }
  });

  it('stays within the DynamoDB call budget (reads <= 3, writes <= 4, auth included)', async () => {
    const { admin } = await orgWithClients(gateway);
    const created = await createProject(admin);
    expect(created.dbCalls).toBeLessThanOrEqual(4);
    const id = created.body.id;
    expect((await admin.get(`/api/v1/projects/${id}`)).dbCalls).toBeLessThanOrEqual(3);
    expect((await admin.get('/api/v1/projects')).dbCalls).toBeLessThanOrEqual(3);
    // A deep page asked for by number (no cursor) reads keys, then the page and the counter together.
    await createProject(admin);
    const deep = await admin.get('/api/v1/projects?page=2&per_page=1');
    expect(deep.body.map((p: { id: number }) => p.id)).not.toContain(id);
    expect(deep.body).toHaveLength(1);
    expect(deep.headers.get('x-total-count')).toBe('2');
    expect(deep.dbCalls).toBeLessThanOrEqual(3);
    expect((await admin.patch(`/api/v1/projects/${id}`, { project: { name: 'n' } })).dbCalls).toBeLessThanOrEqual(4);
    expect((await admin.patch(`/api/v1/projects/${id}`, { project: { prefix: randomPrefix() } })).dbCalls).toBeLessThanOrEqual(4);
    expect((await admin.delete(`/api/v1/projects/${id}`)).dbCalls).toBeLessThanOrEqual(4);
  });
});

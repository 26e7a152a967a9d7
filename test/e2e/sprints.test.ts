import { describe, expect, it } from 'vitest';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();

const today = () => new Date().toISOString().slice(0, 10);

async function orgWithProject() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const member = apiClient(gateway.baseUrl, org.member.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  return { org, admin, member, project, sprints: `/api/v1/projects/${project.id}/sprints` };
}

const createSprint = (client: ApiClient, base: string, fields: Record<string, unknown> = {}) =>
  client.post(base, { sprint: { name: 'Sprint 1', ...fields } });

describe('sprints', () => {
  it('creates a sprint in planning with a kebab-case slug and zeroed statistics', async () => {
    const { admin, project, sprints } = await orgWithProject();
    const res = await createSprint(admin, sprints, {
      name: '  Sprint 12: Café Checkout!  ',
      description: 'Pay',
      start_date: '2026-03-02',
      end_date: '2026-03-13',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      project_id: project.id,
      name: 'Sprint 12: Café Checkout!',
      slug: 'sprint-12-cafe-checkout',
      description: 'Pay',
      status: 'planning',
      start_date: '2026-03-02',
      end_date: '2026-03-13',
      actual_end_date: null,
      issues_count: 0,
      total_story_points: 0,
      completed_story_points: 0,
    });
    expect(res.body).not.toHaveProperty('sprint_lead_id');
    const got = await admin.get(`${sprints}/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect((await admin.get(`/api/v1/projects/${project.id}`)).body.sprints_count).toBe(1);
  });

  it('validates names, real calendar dates and date order, reporting every problem', async () => {
    const { admin, project, sprints } = await orgWithProject();
    const bad = await createSprint(admin, sprints, { name: ' ', start_date: '2026-02-30', end_date: 'tomorrow' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        "name can't be blank",
        'start_date must be a real date (YYYY-MM-DD)',
        'end_date must be a real date (YYYY-MM-DD)',
      ]),
    );
    const reversed = await createSprint(admin, sprints, { start_date: '2026-03-10', end_date: '2026-03-09' });
    expect(reversed.status).toBe(422);
    expect(reversed.body.errors).toEqual(['end_date must be on or after start_date']);
    const long = await createSprint(admin, sprints, { name: 'x'.repeat(256), description: 'y'.repeat(100_001) });
    expect(long.body.errors).toEqual([
      'name is too long (maximum is 255 characters)',
      'description is too long (maximum is 100000 characters)',
    ]);
    const unwrapped = await admin.post(sprints, { name: 'No wrapper' });
    expect(unwrapped.status).toBe(422);
    expect(unwrapped.body).toEqual({ errors: ['sprint is required', "body has an unknown key 'name' (known: sprint)"] });
    expect((await createSprint(admin, sprints, { start_date: '2024-02-29', end_date: '2024-02-29' })).status).toBe(201);
    expect((await admin.get(`/api/v1/projects/${project.id}`)).body.sprints_count).toBe(1);
  });

  it('checks end_date >= start_date against the stored date when only one of them changes', async () => {
    const { admin, sprints } = await orgWithProject();
    const s = (await createSprint(admin, sprints, { start_date: '2026-03-02', end_date: '2026-03-13' })).body;
    const earlyEnd = await admin.patch(`${sprints}/${s.id}`, { sprint: { end_date: '2026-03-01' } });
    expect(earlyEnd.status).toBe(422);
    expect(earlyEnd.body.errors).toEqual(['end_date must be on or after start_date']);
    const lateStart = await admin.put(`${sprints}/${s.id}`, { sprint: { start_date: '2026-03-14' } });
    expect(lateStart.status).toBe(422);
    const both = await admin.patch(`${sprints}/${s.id}`, { sprint: { start_date: '2026-04-01', end_date: '2026-04-10' } });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ start_date: '2026-04-01', end_date: '2026-04-10' });
    const cleared = await admin.patch(`${sprints}/${s.id}`, { sprint: { start_date: null } });
    expect(cleared.body).toMatchObject({ start_date: null, end_date: '2026-04-10' });
    expect((await admin.patch(`${sprints}/${s.id}`, { sprint: { end_date: '2020-01-01' } })).status).toBe(200);
    expect((await admin.get(`${sprints}/${s.id}`)).body).toMatchObject({ start_date: null, end_date: '2020-01-01' });
  });

  it('accepts a sprint lead from the organisation only', async () => {
    const { org, admin, sprints } = await orgWithProject();
    // Account ids are per organisation: id 3 exists in the other organisation only.
    const other = await newOrganisation();
    const third = await createAccountInOrg(other.orgId, {
      name: 'Third',
      email: `third-${other.orgId}@example.com`,
      role: 'member',
    });
    expect(third.account.id).toBe(3);
    expect((await createSprint(admin, sprints, { sprint_lead_id: org.member.id })).status).toBe(201);
    for (const lead of [3, 999_999_999]) {
      const res = await createSprint(admin, sprints, { sprint_lead_id: lead });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors: ['sprint_lead_id must be an account of this organisation'] });
    }
    const s = (await createSprint(admin, sprints)).body;
    expect((await admin.patch(`${sprints}/${s.id}`, { sprint: { sprint_lead_id: 3 } })).status).toBe(422);
    expect((await admin.patch(`${sprints}/${s.id}`, { sprint: { sprint_lead_id: org.admin.id } })).status).toBe(200);
    expect((await admin.patch(`${sprints}/${s.id}`, { sprint: { sprint_lead_id: null } })).status).toBe(200);
    expect((await admin.get(sprints)).headers.get('x-total-count')).toBe('2');
  });

  it('ignores read-only fields on create and update', async () => {
    const { admin, sprints } = await orgWithProject();
    const res = await createSprint(admin, sprints, {
      id: 999,
      status: 'completed',
      slug: 'custom',
      issues_count: 5,
      total_story_points: 9,
      actual_end_date: '2020-01-01',
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'planning',
      slug: 'sprint-1',
      issues_count: 0,
      total_story_points: 0,
      actual_end_date: null,
    });
    expect(res.body.id).not.toBe(999);
    const upd = await admin.patch(`${sprints}/${res.body.id}`, { sprint: { status: 'active', issues_count: 3, project_id: 1 } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ status: 'planning', issues_count: 0, project_id: res.body.project_id });
  });

  it('accepts PUT and PATCH as partial updates; a new name gives a new slug', async () => {
    const { admin, sprints } = await orgWithProject();
    const s = (await createSprint(admin, sprints, { description: 'keep me' })).body;
    const put = await admin.put(`${sprints}/${s.id}`, { sprint: { name: 'Hardening week' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Hardening week', slug: 'hardening-week', description: 'keep me' });
    expect(Date.parse(put.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(s.updated_at));
    const patch = await admin.patch(`${sprints}/${s.id}`, { sprint: { description: null } });
    expect(patch.body).toMatchObject({ name: 'Hardening week', description: null });
    expect((await admin.get(`${sprints}/${s.id}`)).body).toEqual(patch.body);
  });

  it('activates from planning only, defaulting start_date to today, under both spellings', async () => {
    const { admin, sprints } = await orgWithProject();
    const a = (await createSprint(admin, sprints)).body;
    const activated = await admin.post(`${sprints}/${a.id}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ id: a.id, status: 'active', start_date: today() });
    const again = await admin.post(`${sprints}/${a.id}/activation`);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ error: expect.stringContaining('only a sprint in planning can be activated') });

    const b = (await createSprint(admin, sprints, { start_date: '2026-01-05' })).body;
    const viaActivation = await admin.post(`${sprints}/${b.id}/activation`);
    expect(viaActivation.status).toBe(200);
    expect(viaActivation.body).toMatchObject({ status: 'active', start_date: '2026-01-05' });
    expect((await admin.get(`${sprints}/${b.id}`)).body.status).toBe('active');
  });

  it('refuses to activate a sprint whose end_date is already past when it has no start_date', async () => {
    const { admin, sprints } = await orgWithProject();
    const s = (await createSprint(admin, sprints, { end_date: '2020-01-01' })).body;
    const res = await admin.post(`${sprints}/${s.id}/activate`);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('end_date');
    expect((await admin.get(`${sprints}/${s.id}`)).body).toMatchObject({ status: 'planning', start_date: null });
  });

  it('completes from active only, setting actual_end_date, under both spellings', async () => {
    const { admin, sprints } = await orgWithProject();
    const a = (await createSprint(admin, sprints)).body;
    const early = await admin.post(`${sprints}/${a.id}/complete`);
    expect(early.status).toBe(422);
    expect(early.body).toEqual({ error: expect.stringContaining('only an active sprint can be completed') });
    await admin.post(`${sprints}/${a.id}/activate`);
    const done = await admin.post(`${sprints}/${a.id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', actual_end_date: today() });
    expect((await admin.post(`${sprints}/${a.id}/completion`)).status).toBe(422);
    expect((await admin.post(`${sprints}/${a.id}/activate`)).status).toBe(422);

    const b = (await createSprint(admin, sprints)).body;
    await admin.post(`${sprints}/${b.id}/activation`);
    const viaCompletion = await admin.post(`${sprints}/${b.id}/completion`);
    expect(viaCompletion.status).toBe(200);
    expect(viaCompletion.body.status).toBe('completed');
  });

  it('gives exactly one 200 for concurrent activations (and for concurrent completions)', async () => {
    const { admin, sprints } = await orgWithProject();
    const s = (await createSprint(admin, sprints)).body;
    const activations = await Promise.all(
      Array.from({ length: 6 }, (_, i) => admin.post(`${sprints}/${s.id}/${i % 2 ? 'activate' : 'activation'}`)),
    );
    expect(activations.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    for (const r of activations.filter((x) => x.status === 422)) expect(r.body.error).toBeTypeOf('string');
    const completions = await Promise.all(Array.from({ length: 4 }, () => admin.post(`${sprints}/${s.id}/complete`)));
    expect(completions.map((r) => r.status).sort()).toEqual([200, 422, 422, 422]);
  });

  it('lets only admins delete a sprint; the project count follows and the sprint is then 404', async () => {
    const { admin, member, project, sprints } = await orgWithProject();
    const s = (await createSprint(admin, sprints)).body;
    await createSprint(admin, sprints);
    const denied = await member.delete(`${sprints}/${s.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: expect.any(String) });
    expect((await member.patch(`${sprints}/${s.id}`, { sprint: { name: 'members may edit' } })).status).toBe(200);
    const del = await admin.delete(`${sprints}/${s.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await admin.get(`${sprints}/${s.id}`)).status).toBe(404);
    expect((await admin.delete(`${sprints}/${s.id}`)).status).toBe(404);
    expect((await admin.post(`${sprints}/${s.id}/activate`)).status).toBe(404);
    expect((await admin.get(`/api/v1/projects/${project.id}`)).body.sprints_count).toBe(1);
    expect((await admin.get(sprints)).headers.get('x-total-count')).toBe('1');
  });

  it("answers 404 for another organisation's project and sprints", async () => {
    const b = await orgWithProject();
    const a = await orgWithProject();
    // Ids are per organisation: a's second project has an id that b's projects do not.
    const second = (await a.admin.post('/api/v1/projects', { project: { name: 'Second', prefix: randomPrefix() } })).body;
    const foreign = `/api/v1/projects/${second.id}/sprints`;
    const s = (await createSprint(a.admin, foreign)).body;
    expect((await b.admin.get(foreign)).status).toBe(404);
    expect((await b.admin.get(`${foreign}/${s.id}`)).status).toBe(404);
    expect((await b.admin.patch(`${foreign}/${s.id}`, { sprint: { name: 'x' } })).status).toBe(404);
    expect((await b.admin.post(`${foreign}/${s.id}/activate`)).status).toBe(404);
    expect((await b.admin.post(`${foreign}/${s.id}/complete`)).status).toBe(404);
    expect((await b.admin.delete(`${foreign}/${s.id}`)).status).toBe(404);
    expect((await createSprint(b.admin, foreign)).status).toBe(404);
    // Same sprint id under the other organisation's own project: still not found.
    expect((await b.admin.get(`${b.sprints}/${s.id}`)).status).toBe(404);
    expect((await a.admin.get(`${foreign}/${s.id}`)).body.name).toBe('Sprint 1');
  });

  it('answers 404 for a sprint of another project and for non-integer ids', async () => {
    const { admin, sprints } = await orgWithProject();
    const other = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const s = (await createSprint(admin, sprints)).body;
    expect((await admin.get(`/api/v1/projects/${other.id}/sprints/${s.id}`)).status).toBe(404);
    for (const id of ['abc', '0', '1.5']) {
      expect((await admin.get(`${sprints}/${id}`)).status, id).toBe(404);
      expect((await admin.get(`/api/v1/projects/${id}/sprints`)).status, id).toBe(404);
    }
  });

  it('paginates the list with Link, X-Total-Count, X-Page and X-Per-Page', async () => {
    const { admin, sprints } = await orgWithProject();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createSprint(admin, sprints, { name: `S${i}` })).body.id);
    const first = await admin.get(`${sprints}?per_page=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-per-page')).toBe('2');
    expect(first.headers.get('link')).toContain('rel="last"');
    const seen: number[] = [];
    let url: string | undefined = `${sprints}?per_page=2`;
    while (url) {
      const res: ApiResponse = await admin.get(url);
      seen.push(...res.body.map((s: { id: number }) => s.id));
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      url = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(seen).toEqual(ids);
    expect((await admin.get(`${sprints}?page=3&per_page=2`)).body.map((s: { id: number }) => s.id)).toEqual(ids.slice(4));
    expect((await admin.get(`${sprints}?page=0`)).status).toBe(422);
  });

  it('stays within the DynamoDB call budget (reads <= 3, writes <= 4, auth included)', async () => {
    const { admin, sprints } = await orgWithProject();
    const created = await createSprint(admin, sprints, { sprint_lead_id: undefined });
    expect(created.dbCalls).toBeLessThanOrEqual(4);
    const id = created.body.id;
    const calls = {
      list: (await admin.get(sprints)).dbCalls,
      get: (await admin.get(`${sprints}/${id}`)).dbCalls,
      patch: (await admin.patch(`${sprints}/${id}`, { sprint: { name: 'n', end_date: '2030-01-01' } })).dbCalls,
      activate: (await admin.post(`${sprints}/${id}/activate`)).dbCalls,
      refusedActivate: (await admin.post(`${sprints}/${id}/activate`)).dbCalls,
      complete: (await admin.post(`${sprints}/${id}/complete`)).dbCalls,
      delete: (await admin.delete(`${sprints}/${id}`)).dbCalls,
    };
    expect(calls.list).toBeLessThanOrEqual(3);
    expect(calls.get).toBeLessThanOrEqual(3);
    for (const [name, n] of Object.entries(calls)) expect(n, name).toBeLessThanOrEqual(4);
    expect(Object.values(calls).every((n) => n > 0)).toBe(true);
  });
});

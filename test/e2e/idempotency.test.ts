import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { clearFaults, injectFault } from '../support/faults.ts';
import { INLINE_BODY_BYTES } from '../../lib/db/organisation/idempotency.ts';
import { limits } from '../../lib/schemas/common.ts';
import { IDEMPOTENCY_TTL_SECONDS, idempotencyRecordKey } from '../../lib/http/idempotency.ts';
import { apiClient, randomPrefix, type ApiClient, useGateway, orgWithClients } from '../support/api.ts';

const gateway = useGateway();

const projectBody = (fields: Record<string, unknown> = {}) => ({ project: { name: 'Idem', prefix: randomPrefix(), ...fields } });
const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const projectIds = async (client: ApiClient) =>
  (await client.get('/api/v1/projects?per_page=100')).body.map((p: { id: number }) => p.id);

describe('Idempotency-Key on POST', () => {
  it('replays the first response (status, body, headers) for the same key and body, without a second write', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const body = projectBody();
    const first = await admin.post('/api/v1/projects', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await admin.post('/api/v1/projects', body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The replay is a request of its own: fresh rate-limit headers, one more slot taken.
    expect(again.headers.get('x-ratelimit-limit')).toBe('600');
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(
      Number(first.headers.get('x-ratelimit-remaining')),
    );
    // The authorizer's call and the refused conditional put: nothing written.
    expect(again.dbCalls).toBe(2);
    expect(await projectIds(admin)).toEqual([first.body.id]);
  });

  it('refuses the same key with a different body: 422 {errors}, nothing written', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const first = await admin.post('/api/v1/projects', projectBody({ name: 'One' }), withKey(key));
    expect(first.status).toBe(201);
    const other = await admin.post('/api/v1/projects', projectBody({ name: 'Two' }), withKey(key));
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ errors: [expect.stringContaining('Idempotency-Key')] });
    expect(await projectIds(admin)).toEqual([first.body.id]);
  });

  it('keeps the original record when a mismatched body is refused, so the original still replays', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const body = projectBody();
    const first = await admin.post('/api/v1/projects', body, withKey(key));
    expect((await admin.post('/api/v1/projects', projectBody(), withKey(key))).status).toBe(422);
    const replay = await admin.post('/api/v1/projects', body, withKey(key));
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(await projectIds(admin)).toEqual([first.body.id]);
  });

  it('scopes keys to the account: two callers using one key do not collide', async () => {
    const a = await orgWithClients(gateway);
    const b = await orgWithClients(gateway);
    const key = `shared-${randomUUID()}`;
    const body = projectBody();
    const fromAdmin = await a.admin.post('/api/v1/projects', body, withKey(key));
    const fromMember = await a.member.post('/api/v1/projects', body, withKey(key));
    expect([fromAdmin.status, fromMember.status]).toEqual([201, 422]); // same org: the prefix is taken
    expect(fromMember.body.errors).toEqual(['prefix has already been taken']);
    const otherOrg = await b.admin.post('/api/v1/projects', body, withKey(key));
    expect(otherOrg.status).toBe(201);
    expect(otherOrg.headers.get('idempotent-replayed')).toBeNull();
    expect(await projectIds(b.admin)).toEqual([otherOrg.body.id]);
  });

  it('lets exactly one of 10 concurrent requests with one key run; the others replay it or get 409', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const body = projectBody();
    const results = await Promise.all(Array.from({ length: 10 }, () => admin.post('/api/v1/projects', body, withKey(key))));
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(10);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of busy) {
      expect(r.body).toEqual({ error: expect.any(String) });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect(await projectIds(admin)).toHaveLength(1);
    const later = await admin.post('/api/v1/projects', body, withKey(key));
    expect(later.status).toBe(201);
    expect(later.body.id).toBe(created[0]!.body.id);
  });

  it('stores no failed response: a corrected retry with the same key runs', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const bad = await admin.post('/api/v1/projects', { project: { name: 'No prefix' } }, withKey(key));
    expect(bad.status).toBe(422);
    const same = await admin.post('/api/v1/projects', { project: { name: 'No prefix' } }, withKey(key));
    expect(same.status).toBe(422);
    const fixed = await admin.post('/api/v1/projects', projectBody(), withKey(key));
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('remembers a key for 24 hours, then runs the request again', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const body = projectBody();
    const first = await admin.post('/api/v1/projects', body, withKey(key));
    expect(first.status).toBe(201);
    const recordKey = idempotencyRecordKey({
      httpMethod: 'POST',
      resource: '/api/v1/projects',
      pathParameters: null,
      headers: { 'idempotency-key': key },
      requestContext: { authorizer: { orgId: org.orgId, accountId: org.admin.id } },
    });
    const record = (await db.send(new GetCommand({ TableName: tableName(), Key: recordKey, ConsistentRead: true }))).Item;
    expect(record).toMatchObject({ status: 'COMPLETED' });
    expect(record!.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS - 60);
    expect(record!.expires_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS);
    // A day later (the TTL sweep may not have run yet): the key is free again.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: recordKey,
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const rerun = await admin.post('/api/v1/projects', body, withKey(key));
    expect(rerun.status).toBe(422); // it ran again: the prefix is now taken
    expect(rerun.body.errors).toEqual(['prefix has already been taken']);
  });

  it('refuses a malformed key with 400 {error} and runs nothing', async () => {
    const { admin } = await orgWithClients(gateway);
    for (const key of ['', ' ', 'x'.repeat(256), 'tab\tinside', 'ünïcode']) {
      const res = await admin.request('POST', '/api/v1/projects', {
        raw: JSON.stringify(projectBody()),
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      });
      if (key.trim() === '' && res.status === 201) continue; // fetch may drop a blank header value
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.error).toBeTypeOf('string');
    }
    expect(await projectIds(admin)).toEqual([]);
  });

  it('does nothing without the header: two identical POSTs are two requests', async () => {
    const { admin } = await orgWithClients(gateway);
    const a = await admin.post('/api/v1/projects', projectBody());
    const b = await admin.post('/api/v1/projects', projectBody());
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.dbCalls).toBeLessThanOrEqual(4);
  });

  it('is not offered where the response holds a token: such responses are never stored', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const first = await admin.post('/api/v1/me/token', undefined, withKey(key));
    expect(first.status).toBe(201);
    const rotated = apiClient(gateway.baseUrl, first.body.token);
    const second = await rotated.post('/api/v1/me/token', undefined, withKey(key));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.token).not.toBe(first.body.token);
    const body = { account: { name: 'Kept once', email: `kept-${key}@example.com` } };
    const fresh = apiClient(gateway.baseUrl, second.body.token);
    const created = await fresh.post('/api/v1/accounts', body, withKey(key));
    expect(created.status).toBe(201);
    const again = await fresh.post('/api/v1/accounts', body, withKey(key));
    expect(again.status).toBe(422); // ran again: the e-mail is taken; no stored token came back
    expect(again.text).not.toContain(created.body.token);
  });

  it('keys the record by path as well: one key on two paths is two requests', async () => {
    const { admin } = await orgWithClients(gateway);
    const key = randomUUID();
    const p1 = (await admin.post('/api/v1/projects', projectBody())).body;
    const p2 = (await admin.post('/api/v1/projects', projectBody())).body;
    const sprint = { sprint: { name: 'S1' } };
    const s1 = await admin.post(`/api/v1/projects/${p1.id}/sprints`, sprint, withKey(key));
    const s2 = await admin.post(`/api/v1/projects/${p2.id}/sprints`, sprint, withKey(key));
    expect([s1.status, s2.status]).toEqual([201, 201]);
    expect(s2.headers.get('idempotent-replayed')).toBeNull();
    expect(s1.body.project_id).toBe(p1.id);
    expect(s2.body.project_id).toBe(p2.id);
  });
});

describe('Idempotency-Key with responses of any size', () => {
  afterEach(() => clearFaults());

  const issuesOf = async (client: ApiClient, path: string) => (await client.get(path)).body.map((i: { id: number }) => i.id);

  async function sprintPath(client: ApiClient) {
    const project = (await client.post('/api/v1/projects', projectBody())).body;
    const sprint = (await client.post(`/api/v1/projects/${project.id}/sprints`, { sprint: { name: 'S1' } })).body;
    return `/api/v1/projects/${project.id}/sprints/${sprint.id}/issues`;
  }

  it('replays a maximal response (stored in parts beside its record) whole, with no duplicate', async () => {
    const { admin } = await orgWithClients(gateway);
    const issues = await sprintPath(admin);
    const key = randomUUID();
    // 100,000 characters JSON-escaped to 2 bytes each (the widest a description accepts): about 200 KB.
    const body = { issue: { title: '"'.repeat(limits.name), description: '"'.repeat(limits.description) } };

    const first = await admin.post(issues, body, withKey(key));
    const again = await admin.post(issues, body, withKey(key));

    expect(first.status).toBe(201);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(INLINE_BODY_BYTES);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await issuesOf(admin, issues)).toEqual([first.body.id]);
  });

  it('replays a response of multi-byte characters split across parts byte for byte', async () => {
    const { admin } = await orgWithClients(gateway);
    const issues = await sprintPath(admin);
    const key = randomUUID();
    // 3- and 4-byte characters among escaped ones, past the inline size: the cut between parts may fall inside one.
    const body = { issue: { title: 'Emoji', description: '""€😀'.repeat(16_000) } };

    const first = await admin.post(issues, body, withKey(key));
    const again = await admin.post(issues, body, withKey(key));

    expect(first.status).toBe(201);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(INLINE_BODY_BYTES);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.body.description).toBe(body.issue.description);
  });

  it('does not answer a success it cannot replay: a record that fails to save is 500 {error}, and a retry is refused, not run', async () => {
    const { admin } = await orgWithClients(gateway);
    const issues = await sprintPath(admin);
    const key = randomUUID();
    const body = { issue: { title: 'Once' } };
    injectFault({
      commands: ['UpdateItemCommand'],
      fault: 'Unknown',
      when: (input) => String(input.UpdateExpression ?? '').includes('#status = :status'),
    });

    const first = await admin.post(issues, body, withKey(key));
    clearFaults();
    const retry = await admin.post(issues, body, withKey(key));

    expect(first.status).toBe(500);
    expect(first.body.error).toMatch(/applied.*Idempotency-Key record could not be saved/);
    expect(retry.status).toBe(409);
    expect((await issuesOf(admin, issues)).length).toBe(1);
  });
});

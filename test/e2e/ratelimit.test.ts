import { describe, expect, it } from 'vitest';
import { authenticateAndConsume } from '../../lib/jobs/token-buckets.ts';
import { INTERVAL_MS, RATE_LIMIT } from '../../lib/model/ratelimit.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { apiClient, randomPrefix, type ApiResponse, useGateway, orgWithClients } from '../support/api.ts';
import { drainBucket } from '../support/drained-bucket.ts';
import { pool } from '../support/pool.ts';

const gateway = useGateway();

/**
 * Empties a token's bucket as of `at` (test/support/drained-bucket.ts). With `at` ahead of the clock
 * the bucket stays empty until then, long enough to observe it over HTTP however slow the machine.
 */
const AHEAD_MS = 45_000;
const drain = (token: string, at: number) => drainBucket(hashToken(token), at);

function expectRateHeaders(res: ApiResponse, label = '') {
  expect(res.headers.get('x-ratelimit-limit'), label).toBe('600');
  expect(res.headers.get('x-ratelimit-remaining'), label).toMatch(/^\d+$/);
  expect(res.headers.get('x-ratelimit-reset'), label).toMatch(/^\d{10}$/);
}

describe('rate limit over HTTP', () => {
  it('puts X-RateLimit-* on every authenticated response, successes and errors alike', async () => {
    const { admin } = await orgWithClients(gateway);
    const created = await admin.post('/api/v1/projects', { project: { name: 'Rated', prefix: randomPrefix() } });
    const responses: [string, ApiResponse][] = [
      ['201', created],
      ['200', await admin.get('/api/v1/me')],
      ['200 list', await admin.get('/api/v1/projects')],
      ['404', await admin.get('/api/v1/projects/999999')],
      ['422', await admin.post('/api/v1/projects', { project: {} })],
      [
        '400',
        await admin.request('POST', '/api/v1/projects', { raw: '{"project":', headers: { 'Content-Type': 'application/json' } }),
      ],
      ['415', await admin.request('POST', '/api/v1/projects', { raw: 'name=x', headers: { 'Content-Type': 'text/plain' } })],
      ['204', await admin.delete(`/api/v1/projects/${created.body.id}`)],
    ];
    for (const [label, res] of responses) {
      expect(String(res.status), label).toBe(label.split(' ')[0]);
      expectRateHeaders(res, label);
    }
    // Each request took one slot (the bucket refills one every 100 ms meanwhile).
    const remaining = responses.map(([, res]) => Number(res.headers.get('x-ratelimit-remaining')));
    expect(remaining[0]).toBe(599);
    for (const r of remaining) expect(r).toBeGreaterThanOrEqual(599 - responses.length);
  });

  it('answers 429 {error} with Retry-After (the real wait, whole seconds) and does no domain work', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const at = Date.now() + AHEAD_MS;
    await drain(org.admin.token, at);
    const sent = Date.now();
    const res = await admin.post('/api/v1/projects', { project: { name: 'Never', prefix: randomPrefix() } });
    const received = Date.now();
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ error: expect.any(String) });
    // The next slot frees at tat - TAU = at + 100 ms; the request was judged between sent and received.
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((at + INTERVAL_MS - received) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((at + INTERVAL_MS - sent) / 1000));
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((at + 60_000) / 1000)));
    // The authorizer's single conditional write, nothing else; nothing was created.
    expect(res.dbCalls).toBe(1);
    expect((await member.get('/api/v1/projects')).body).toEqual([]);
  });

  it('lets 700 requests fired 50 at a time, in both header forms, through up to 600 plus what refilled meanwhile', async () => {
    const { org } = await orgWithClients(gateway);
    const client = apiClient(gateway.baseUrl);
    const started = Date.now();
    // A cheap authenticated route (one GetItem behind the authorizer); the header forms alternate,
    // so separate buckets per form would let about twice as many through.
    const results = await pool(700, 50, (i) =>
      i % 2 === 0
        ? client.get('/api/v1/projects/999999', { token: org.admin.token })
        : client.get('/api/v1/projects/999999', { token: null, headers: { 'X-API-Token': org.admin.token } }),
    );
    const elapsed = Date.now() - started;
    const passed = results.filter((r) => r.status === 404);
    const limited = results.filter((r) => r.status === 429);
    expect(passed.length + limited.length).toBe(700);
    const allowance = RATE_LIMIT.capacity + Math.floor(elapsed / INTERVAL_MS);
    expect(passed.length).toBeLessThanOrEqual(allowance);
    expect(passed.length).toBeGreaterThanOrEqual(RATE_LIMIT.capacity);
    for (const r of limited) {
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body.error).toBeTypeOf('string');
      expectRateHeaders(r);
    }
    for (const r of passed) expectRateHeaders(r);
    const authCalls = limited.map((r) => r.dbCalls);
    console.info(
      `e2e burst: ${passed.length}/700 passed, ${limited.length} got 429, in ${elapsed} ms (allowance ${allowance}); ` +
        `DynamoDB calls per refused request: max ${Math.max(...authCalls)}`,
    );
  });

  it('limits both header forms once the bucket is empty', async () => {
    const { org } = await orgWithClients(gateway);
    await drain(org.admin.token, Date.now() + AHEAD_MS);
    const client = apiClient(gateway.baseUrl);
    const bearer = await client.get('/api/v1/me', { token: org.admin.token });
    const header = await client.get('/api/v1/me', { token: null, headers: { 'X-API-Token': org.admin.token } });
    const both = await client.get('/api/v1/me', { token: org.admin.token, headers: { 'X-API-Token': org.admin.token } });
    expect([bearer.status, header.status, both.status]).toEqual([429, 429, 429]);
  });

  it('does not let a limited token slow down or limit another token of the same organisation', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const alone = await member.get('/api/v1/me');
    await drain(org.admin.token, Date.now() + AHEAD_MS);
    // The member's requests run while the admin keeps hitting its limit.
    const timed = async () => {
      const t = performance.now();
      const res = await member.get('/api/v1/me');
      return { res, ms: performance.now() - t };
    };
    // One member request at a time: two at once on one bucket may cost one more call, by design.
    const [limited, served] = await Promise.all([pool(100, 10, () => admin.get('/api/v1/me')), pool(20, 1, timed)]);
    expect(limited.every((r) => r.status === 429)).toBe(true);
    expect(served.every(({ res }) => res.status === 200)).toBe(true);
    for (const { res } of served) {
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(599 - 21);
      // Separate items, no contention: not one extra DynamoDB call (a retried bucket update would show).
      expect(res.dbCalls).toBe(alone.dbCalls);
    }
    const ms = served.map((x) => x.ms).sort((a, b) => a - b);
    console.info(`other token under a limited one: median ${ms[10]!.toFixed(1)} ms, max ${ms[19]!.toFixed(1)} ms`);
  });
});

describe('token lifecycle over HTTP', () => {
  it('refuses a regenerated token on the very next request, in both header forms', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const regen = await admin.post('/api/v1/me/token');
    expect(regen.status).toBe(201);
    const fresh: string = regen.body.token;
    expect(fresh).not.toBe(org.admin.token);
    const client = apiClient(gateway.baseUrl);
    const old = await client.get('/api/v1/me', { token: org.admin.token });
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: expect.any(String) });
    expect((await client.get('/api/v1/me', { token: null, headers: { 'X-API-Token': org.admin.token } })).status).toBe(401);
    const now = await client.get('/api/v1/me', { token: fresh });
    expect(now.status).toBe(200);
    expect(now.body.account.id).toBe(org.admin.id);
    // Both forms must carry the same token: the old one beside the new one is refused.
    expect((await client.get('/api/v1/me', { token: fresh, headers: { 'X-API-Token': org.admin.token } })).status).toBe(401);
  });

  it('refuses a revoked token on the very next request', async () => {
    const { member } = await orgWithClients(gateway);
    expect((await member.get('/api/v1/me')).status).toBe(200);
    expect((await member.delete('/api/v1/me/token')).status).toBe(204);
    const after = await member.get('/api/v1/me');
    expect(after.status).toBe(401);
    expect(after.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await member.post('/api/v1/me/token')).status).toBe(401);
  });

  it('does not refill the bucket when a token is regenerated', async () => {
    const { org, admin } = await orgWithClients(gateway);
    // Leave 10 slots (plus what refills while the test runs), then rotate the token.
    const started = Date.now();
    const hash = hashToken(org.admin.token);
    await pool(RATE_LIMIT.capacity - 10, 50, () => authenticateAndConsume(hash, started));
    const regen = await admin.post('/api/v1/me/token');
    expect(regen.status).toBe(201);
    const next = await apiClient(gateway.baseUrl, regen.body.token).get('/api/v1/me');
    expect(next.status).toBe(200);
    const refilled = Math.floor((Date.now() - started) / INTERVAL_MS);
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(10 - 2 + refilled);
  });
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { bucketStateOf } from '../../lib/db/organisation/tokens.ts';
import { authenticateAndConsume } from '../../lib/jobs/token-buckets.ts';
import { regenerateToken, revokeToken } from '../../lib/services/accounts.ts';
import { authenticate } from '../../lib/services/auth.ts';
import { UnauthorizedError } from '../../lib/vocabulary/errors.ts';
import { INTERVAL_MS, RATE_LIMIT } from '../../lib/model/ratelimit.ts';
import { generateToken, hashToken } from '../../lib/model/tokens.ts';
import { newOrganisation } from '../support/api.ts';
import { drainBucket } from '../support/drained-bucket.ts';
import { pool } from '../support/pool.ts';

const CAPACITY = RATE_LIMIT.capacity;
/** GCRA burst tolerance: a request is admitted while tat - now <= TAU. */
const TAU = (CAPACITY - 1) * INTERVAL_MS;

async function consume(tokenHash: string, now: number) {
  const { result, log } = await withDbCallLog(() => authenticateAndConsume(tokenHash, now));
  if (!result) throw new Error('token unexpectedly unknown');
  return { ...result, calls: log.calls.length };
}

/** A token whose bucket is exactly empty at `now`, as 600 requests at that instant leave it (test/support/drained-bucket.ts). */
async function drainedToken(now: number) {
  const org = await newOrganisation();
  const hash = hashToken(org.admin.token);
  await drainBucket(hash, now);
  return { org, hash };
}

describe('the per-token bucket (GCRA, 600 capacity, 10/s)', () => {
  it('admits exactly 600 of 700 concurrent requests at one instant, each slot once', async () => {
    const org = await newOrganisation();
    const hash = hashToken(org.admin.token);
    const now = Date.now();
    const results = await pool(700, 50, () => consume(hash, now));
    const admitted = results.filter((r) => r.rate.allowed);
    const refused = results.filter((r) => !r.rate.allowed);
    expect(admitted).toHaveLength(600);
    expect(refused).toHaveLength(100);
    // Every slot was spent exactly once: the remaining counts are 599..0, no repeats, no gaps.
    expect(admitted.map((r) => r.rate.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    // After 600 at `now`, tat = now + 600 intervals; the next slot frees at tat - TAU = now + 100 ms.
    for (const r of refused) {
      expect(r.rate).toEqual({ allowed: false, remaining: 0, resetAt: Math.ceil((now + 60_000) / 1000), retryAfter: 1 });
      expect(r.principal).toEqual({
        orgId: org.orgId,
        accountId: org.admin.id,
        role: 'admin',
        tokenHash: hash,
        name: 'Ada Admin',
      });
    }
    // A refused request costs one conditional write and changes nothing.
    expect(Math.max(...refused.map((r) => r.calls))).toBe(1);
    // The state the 600 left is the one test/support/drained-bucket.ts leaves with one request.
    const other = hashToken((await newOrganisation()).admin.token);
    await drainBucket(other, now);
    expect(await bucketStateOf(other)).toBe(now + CAPACITY * INTERVAL_MS);
    expect(await bucketStateOf(hash)).toBe(now + CAPACITY * INTERVAL_MS);
  });

  it('frees a slot exactly when Retry-After says, and refills 10 per second', async () => {
    const t0 = Date.now();
    const { hash } = await drainedToken(t0);
    // The earliest admission after the drain is at tat - TAU.
    const free = t0 + CAPACITY * INTERVAL_MS - TAU;
    expect(free - t0).toBe(100);
    const early = await consume(hash, free - 1);
    expect(early.rate.allowed).toBe(false);
    expect(early.rate.retryAfter).toBe(Math.max(1, Math.ceil(1 / 1000)));
    expect((await consume(hash, free)).rate.allowed).toBe(true);
    expect((await consume(hash, free)).rate.allowed).toBe(false);

    // One second after the drain: 10 slots refilled in total (one of them taken above).
    const t1 = t0 + 1000;
    const wave = await pool(20, 10, () => consume(hash, t1));
    expect(wave.filter((r) => r.rate.allowed)).toHaveLength(9);
    // Full again once tat is behind now: the reset time the headers announce.
    const resetAt = Math.max(...wave.map((r) => r.rate.resetAt)) * 1000;
    expect(resetAt).toBe(Math.ceil((t0 + 61_000) / 1000) * 1000);
    const later = await consume(hash, resetAt);
    expect(later.rate).toMatchObject({ allowed: true, remaining: CAPACITY - 1 });
  });

  it('answers Retry-After as the whole seconds, at least 1, until the next slot, for any refusal time', async () => {
    const t0 = Date.now();
    const { hash } = await drainedToken(t0);
    for (const offset of [0, 1, 37, 99]) {
      const r = await consume(hash, t0 + offset);
      expect(r.rate.allowed).toBe(false);
      const waitMs = t0 + CAPACITY * INTERVAL_MS - TAU - (t0 + offset);
      expect(r.rate.retryAfter).toBe(Math.max(1, Math.ceil(waitMs / 1000)));
      expect(r.rate.retryAfter! * 1000).toBeGreaterThanOrEqual(waitMs);
    }
  });

  it('with the real clock, lets through at most 600 plus what refilled while 700 requests ran 50 at a time', async () => {
    const org = await newOrganisation();
    const hash = hashToken(org.admin.token);
    const started = Date.now();
    const results = await pool(700, 50, async () => {
      const { result, log } = await withDbCallLog(() => authenticateAndConsume(hash));
      return { rate: result!.rate, calls: log.calls.length };
    });
    const elapsed = Date.now() - started;
    const admitted = results.filter((r) => r.rate.allowed).length;
    // Each admission advances tat by 100 ms from at least `started`, and is admitted only while
    // tat - now <= TAU with now <= started + elapsed: n <= 600 + elapsed / 100.
    const allowance = CAPACITY + Math.floor(elapsed / INTERVAL_MS);
    expect(admitted).toBeLessThanOrEqual(allowance);
    expect(admitted).toBeGreaterThanOrEqual(CAPACITY);
    for (const r of results.filter((x) => !x.rate.allowed)) expect(r.rate.retryAfter).toBe(1);
    const calls = results.map((r) => r.calls);
    const mean = calls.reduce((a, b) => a + b, 0) / calls.length;
    console.info(
      `bucket: ${admitted}/700 admitted in ${elapsed} ms (allowance ${allowance}); DynamoDB calls per auth: mean ${mean.toFixed(2)}, max ${Math.max(...calls)}`,
    );
    expect(Math.max(...calls)).toBeLessThanOrEqual(3);
  });

  it('costs one DynamoDB call per request in the common cases', async () => {
    const org = await newOrganisation();
    const hash = hashToken(org.admin.token);
    const now = Date.now();
    // An idle (full) bucket, then a draining one, then an exhausted one.
    expect((await consume(hash, now)).calls).toBe(1);
    for (let i = 0; i < 5; i++) expect((await consume(hash, now)).calls).toBe(1);
    expect((await consume(hash, now + 120_000)).calls).toBe(1);
  });

  it("keeps one bucket per token: an exhausted token leaves its org's other tokens untouched", async () => {
    const now = Date.now();
    const { org } = await drainedToken(now);
    expect((await consume(hashToken(org.admin.token), now)).rate.allowed).toBe(false);
    const other = await consume(hashToken(org.member.token), now);
    expect(other.rate).toMatchObject({ allowed: true, remaining: CAPACITY - 1 });
    expect(other.calls).toBe(1);
  });

  it('shares one bucket between the Authorization and X-API-Token header forms', async () => {
    const org = await newOrganisation();
    const now = Date.now();
    const a = await authenticate({ Authorization: `Bearer ${org.admin.token}` }, now);
    const b = await authenticate({ 'x-api-token': org.admin.token }, now);
    const c = await authenticate({ authorization: `Bearer ${org.admin.token}`, 'X-API-Token': org.admin.token }, now);
    expect([a.rate.remaining, b.rate.remaining, c.rate.remaining]).toEqual([599, 598, 597]);
  });
});

describe('token lifecycle and the bucket', () => {
  it('refuses unknown tokens without creating anything', async () => {
    const hash = hashToken(generateToken());
    expect(await authenticateAndConsume(hash)).toBeUndefined();
    const out = await db.send(new GetCommand({ TableName: tableName(), Key: keys.token(hash), ConsistentRead: true }));
    expect(out.Item).toBeUndefined();
  });

  it('refuses a revoked token from the next request on, and its requests recreate no bucket', async () => {
    const org = await newOrganisation();
    const hash = hashToken(org.member.token);
    expect(await authenticateAndConsume(hash)).toBeDefined();
    await revokeToken(org.orgId, org.member.id);
    await expect(authenticate({ authorization: `Bearer ${org.member.token}` })).rejects.toBeInstanceOf(UnauthorizedError);
    await pool(20, 10, () => authenticateAndConsume(hash));
    const out = await db.send(new GetCommand({ TableName: tableName(), Key: keys.token(hash), ConsistentRead: true }));
    expect(out.Item).toBeUndefined();
  });

  it("gives a regenerated token the old one's bucket, which the dead token can no longer spend", async () => {
    const now = Date.now();
    const { org, hash: oldHash } = await drainedToken(now);
    const fresh = await regenerateToken(org.orgId, org.admin.id);
    // Rotating does not refill: the new token is as exhausted as the old one was.
    const first = await consume(hashToken(fresh), now);
    expect(first.rate).toMatchObject({ allowed: false, retryAfter: 1 });
    // The old token is dead; hammering it cannot touch the new token's bucket.
    expect(await pool(50, 10, () => authenticateAndConsume(oldHash, now + 1000))).toEqual(new Array(50).fill(undefined));
    const later = await consume(hashToken(fresh), now + 1000);
    expect(later.rate).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('starts a token that was never used with a full bucket after regeneration', async () => {
    const org = await newOrganisation();
    const fresh = await regenerateToken(org.orgId, org.member.id);
    expect((await consume(hashToken(fresh), Date.now())).rate).toMatchObject({ allowed: true, remaining: CAPACITY - 1 });
  });
});

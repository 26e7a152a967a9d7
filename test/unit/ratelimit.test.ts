import fc from 'fast-check';
import { describe as group, expect, it } from 'vitest';
import { describe, INTERVAL_MS, maxTatFor, nextTat, RATE_LIMIT } from '../../lib/model/ratelimit.ts';

/**
 * The textbook token bucket, in integer "milliseconds of credit": it holds up to 600 x 100 ms,
 * gains 1 per millisecond, and a request costs 100. The GCRA state the service keeps must decide
 * exactly as this does, and report what it reports.
 */
class ReferenceBucket {
  credit = RATE_LIMIT.capacity * INTERVAL_MS;
  last: number;
  constructor(start: number) {
    this.last = start;
  }
  take(now: number): { allowed: boolean; remaining: number; waitMs: number } {
    this.credit = Math.min(RATE_LIMIT.capacity * INTERVAL_MS, this.credit + (now - this.last));
    this.last = now;
    if (this.credit < INTERVAL_MS) return { allowed: false, remaining: 0, waitMs: INTERVAL_MS - this.credit };
    this.credit -= INTERVAL_MS;
    return { allowed: true, remaining: Math.floor(this.credit / INTERVAL_MS), waitMs: 0 };
  }
}

/** What the conditional writes of lib/db/organisation/tokens.ts decide, without DynamoDB. */
function gcra(tat: number | undefined, now: number) {
  const current = tat ?? 0;
  if (current > maxTatFor(now)) return { tat: current, rate: describe(current, now, false) };
  const after = nextTat(tat, now);
  return { tat: after, rate: describe(after, now, true) };
}

group('the GCRA bucket state', () => {
  it('decides and reports exactly like a token bucket of 600 refilling 10 per second', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        // Mostly bursts (gaps of 0 to 150 ms, enough to drain the bucket), now and then a long pause.
        fc.array(
          fc.oneof(
            { arbitrary: fc.constant(0), weight: 200 },
            { arbitrary: fc.integer({ min: 0, max: 150 }), weight: 100 },
            { arbitrary: fc.integer({ min: 0, max: 20_000 }), weight: 1 },
          ),
          { minLength: 600, maxLength: 2000 },
        ),
        (gaps) => {
          const start = 1_800_000_000_000;
          const bucket = new ReferenceBucket(start);
          let tat: number | undefined;
          let now = start;
          for (const gap of gaps) {
            now += gap;
            const expected = bucket.take(now);
            const got = gcra(tat, now);
            tat = got.tat;
            expect(got.rate.allowed).toBe(expected.allowed);
            expect(got.rate.remaining).toBe(expected.remaining);
            if (!expected.allowed) {
              refused++;
              expect(got.rate.retryAfter).toBe(Math.max(1, Math.ceil(expected.waitMs / 1000)));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(refused).toBeGreaterThan(1000);
  });

  it('admits a full burst of 600 at one instant and no more', () => {
    let tat: number | undefined;
    const now = 1_800_000_000_000;
    const decisions = Array.from({ length: 601 }, () => {
      const d = gcra(tat, now);
      tat = d.tat;
      return d.rate;
    });
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(decisions[599]).toEqual({ allowed: true, remaining: 0, resetAt: Math.ceil((now + 60_000) / 1000) });
    expect(decisions[600]).toEqual({ allowed: false, remaining: 0, resetAt: Math.ceil((now + 60_000) / 1000), retryAfter: 1 });
  });

  it('reports the reset time as the moment the bucket is full again', () => {
    const now = 1_800_000_000_000;
    const { tat, rate } = gcra(undefined, now);
    expect(rate).toEqual({ allowed: true, remaining: 599, resetAt: Math.ceil((now + INTERVAL_MS) / 1000) });
    // At the reset time, a request finds a full bucket again.
    expect(gcra(tat, rate.resetAt * 1000).rate.remaining).toBe(599);
  });
});

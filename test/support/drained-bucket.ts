import { authenticateAndConsume } from '../../lib/jobs/token-buckets.ts';
import { INTERVAL_MS, RATE_LIMIT } from '../../lib/model/ratelimit.ts';

/**
 * Leaves a token's bucket as `RATE_LIMIT.capacity` (600) requests admitted at the instant `at`
 * leave it, with one request: the bucket is one number, `tat` (lib/model/ratelimit.ts), and a request
 * admitted at `at + 599 intervals` moves a full bucket's `tat` to `at + 600 intervals`, where the
 * 600 requests at `at` put it. integration/ratelimit's first test spends those 600 requests at one
 * instant and checks that state: the refusals and their Retry-After from there on.
 */
export async function drainBucket(tokenHash: string, at: number): Promise<void> {
  const result = await authenticateAndConsume(tokenHash, at + (RATE_LIMIT.capacity - 1) * INTERVAL_MS);
  // 599 left at that instant: the bucket was not already emptier than the 600 requests leave it.
  if (result?.rate.remaining !== RATE_LIMIT.capacity - 1) {
    throw new Error(`drainBucket: the token is unknown, or its bucket was already emptier (${JSON.stringify(result?.rate)})`);
  }
}

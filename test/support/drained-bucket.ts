import { authenticateAndConsume } from '../../lib/db/tokens.ts';
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
  if (!result?.rate.allowed) throw new Error('drainBucket: the token is unknown, or its bucket was not full');
}

import { describe, maxTatFor, type RateDecision } from '../model/ratelimit.ts';
import type { Principal } from '../model/principal.ts';
import { admitFromDrained, admitFromFull } from '../db/organisation/tokens.ts';

/**
 * The authorizer's take of one request from a token's rate-limit bucket (lib/model/ratelimit.ts):
 * which conditional write to try, and the next when the bucket was not in the state it was written
 * for. Each write is in lib/db/organisation/tokens.ts.
 */

export type Authentication = { principal: Principal; rate: RateDecision } | undefined;

const MAX_ATTEMPTS = 8;

/**
 * Last `tat` this container saw per token: only a hint for which conditional update to try
 * first, so that a busy token and an idle one both usually cost one call. A wrong hint costs one
 * extra call, never correctness. Bounded: the oldest entry goes first.
 */
const tatHints = new Map<string, number>();
const MAX_HINTS = 10_000;

function remember(tokenHash: string, tat: number) {
  tatHints.delete(tokenHash);
  tatHints.set(tokenHash, tat);
  if (tatHints.size > MAX_HINTS) tatHints.delete(tatHints.keys().next().value as string);
}

/**
 * Looks a token up by its hash and takes one request from its bucket: one conditional UpdateItem
 * in the common cases, two when the hint of which case applies was stale. Returns undefined for an
 * unknown (never issued, revoked, regenerated) token.
 *
 * Exact under concurrency: every admitted request advances `tat` by one interval under a condition
 * that holds only in the case the update was written for, so no two requests spend the same slot.
 */
export async function authenticateAndConsume(tokenHash: string, now = Date.now()): Promise<Authentication> {
  const hint = tatHints.get(tokenHash);
  let busy = hint !== undefined && hint > now;
  let last: Principal | undefined;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = busy ? await admitFromDrained(tokenHash, now) : await admitFromFull(tokenHash, now);
    if (!result) return undefined; // no such token
    const { tat, principal } = result;
    last = principal;
    remember(tokenHash, tat);
    if (result.admitted) return { principal, rate: describe(tat, now, true) };
    if (tat > maxTatFor(now)) return { principal, rate: describe(tat, now, false) };
    busy = tat > now;
  }
  // Only under pathological contention: refusing is safe, the client retries after a second.
  return (
    last && {
      principal: last,
      rate: { allowed: false, remaining: 0, resetAt: Math.ceil(now / 1000) + 1, retryAfter: 1 },
    }
  );
}

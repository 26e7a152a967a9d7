/**
 * Per-token rate limit: a token bucket of 600 that refills 10 per second, kept as GCRA (generic cell
 * rate algorithm) state: one number, the "theoretical arrival time" `tat` (ms). Each allowed request
 * moves `tat` to max(tat, now) + interval; a request is refused when that would put `tat` more than
 * capacity x interval ahead of now. Equivalent to the bucket, but a single attribute that a
 * conditional DynamoDB update can advance atomically.
 */
export const RATE_LIMIT = { capacity: 600, refillPerSecond: 10 } as const;
export const INTERVAL_MS = 1000 / RATE_LIMIT.refillPerSecond;
const WINDOW_MS = RATE_LIMIT.capacity * INTERVAL_MS;

export interface RateDecision {
  allowed: boolean;
  /** Requests left in the bucket after this one. */
  remaining: number;
  /** Unix time (s) at which the bucket is full again. */
  resetAt: number;
  /** Whole seconds (>= 1) until a request would be allowed; only when refused. */
  retryAfter?: number;
}

/** Latest `tat` that still admits a request at `now`. */
export const maxTatFor = (now: number) => now + WINDOW_MS - INTERVAL_MS;

/** The state after admitting one request at `now`. */
export const nextTat = (tat: number | undefined, now: number) => Math.max(tat ?? 0, now) + INTERVAL_MS;

/** Headers' view of a bucket whose state is `tat` after the request. */
export function describe(tatAfter: number, now: number, allowed: boolean): RateDecision {
  const ahead = Math.max(0, tatAfter - now);
  const remaining = Math.max(0, Math.floor((WINDOW_MS - ahead) / INTERVAL_MS));
  const resetAt = Math.ceil((now + ahead) / 1000);
  if (allowed) return { allowed, remaining, resetAt };
  // Refused: the next request fits once tat - now <= WINDOW - INTERVAL.
  const waitMs = tatAfter - maxTatFor(now);
  return { allowed, remaining: 0, resetAt, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * The rules that keep one organisation's webhooks from delaying another's (docs/change-feed.md,
 * "Fair delivery"). Pure: the SQS setup (infra/constructs/change-feed.ts, lib/webhooks/queue.ts),
 * the deliverer (lib/webhooks/deliver.ts) and the local queue (tools/local/delivery-queue.ts) all
 * decide by these.
 */

/** A delivery lane: its own queue and its own share of the deliverer's concurrency. */
export type Lane = 'fast' | 'slow';

/**
 * Concurrent deliverer invocations of each lane in AWS (the event source mappings' maximum
 * concurrency). Each invocation runs a batch of up to 10 messages at once.
 */
export const LANE_CONCURRENCY: Record<Lane, number> = { fast: 50, slow: 10 };

/**
 * An organisation may hold at most this fraction of a lane's concurrency: counted in attempts, so
 * even with each of its attempts in an invocation of its own, four fifths stay free for others.
 */
export const ORG_SHARE_DIVISOR = 5;

/** Slow attempts in a row (`attemptSpeed`) before an endpoint moves to the slow lane. */
export const SLOW_AFTER = 3;

/** The message group of a delivery message: its organisation (SQS fair queues balance by group). */
export function messageGroupOf(message: { orgId: number }): string {
  return `org-${message.orgId}`;
}

/** The attempts one organisation may have in flight at once in a lane that runs `concurrency` at once. */
export function orgInFlightCap(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / ORG_SHARE_DIVISOR));
}

/**
 * The attempts one endpoint may have in flight: half its organisation's (rounded up), so that one
 * slow endpoint leaves the others of its organisation places of their own.
 */
export function endpointInFlightCap(orgCap: number): number {
  return Math.max(1, Math.ceil(orgCap / 2));
}

/**
 * Which waiting message goes next, as an SQS fair queue orders them: a message of the group with
 * the fewest messages in flight, the oldest of those (`ready` is in arrival order). -1 when none
 * waits. SQS only starts reordering once a group is a clear outlier; this is the strict form of
 * the same rule.
 */
export function nextMessage(ready: readonly { group: string }[], inFlight: ReadonlyMap<string, number>): number {
  let best = -1;
  let bestLoad = Infinity;
  for (let i = 0; i < ready.length; i++) {
    const load = inFlight.get((ready[i] as { group: string }).group) ?? 0;
    if (load < bestLoad) {
      best = i;
      bestLoad = load;
      if (load === 0) break;
    }
  }
  return best;
}

/**
 * How long a message over its organisation's (or endpoint's) cap waits before it is tried again:
 * `baseMs`, doubling with each deferral of the same message up to 32 x `baseMs` (a backlog behind
 * a hanging endpoint is looked at less and less often), spread by `jitter` (0..1) over +-50% so
 * that a deferred burst does not come back all at once.
 */
export function deferDelayMs(deferrals: number, baseMs: number, jitter: number): number {
  const plain = baseMs * 2 ** Math.min(5, Math.max(0, deferrals));
  return Math.round(plain * (0.5 + jitter));
}

/** What an attempt says about its endpoint's speed. */
export type AttemptSpeed = 'slow' | 'answered' | 'refused';

/**
 * An attempt is slow when it took `slowMs` or more (half the timeout by default; answered late or
 * not at all); an answer (any status) sooner is `answered`; a quick failure without an answer
 * (connection refused, address refused) says nothing about speed.
 */
export function attemptSpeed(outcome: { status?: number | undefined; durationMs: number }, slowMs: number): AttemptSpeed {
  if (outcome.durationMs >= slowMs) return 'slow';
  return outcome.status === undefined ? 'refused' : 'answered';
}

/** An endpoint's slow attempts in a row after this attempt: one more, none after a quick answer. */
export function slowAttemptsAfter(previous: number, speed: AttemptSpeed): number {
  if (speed === 'slow') return previous + 1;
  return speed === 'answered' ? 0 : previous;
}

/** The lane of an endpoint with `slowAttempts` slow attempts in a row. */
export function laneOf(slowAttempts: number): Lane {
  return slowAttempts >= SLOW_AFTER ? 'slow' : 'fast';
}

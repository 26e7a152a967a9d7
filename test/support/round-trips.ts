import { db } from '../../lib/db/client.ts';

let meters = 0;

/**
 * Serial round trips to DynamoDB while `measure` runs one step alone: the longest chain of calls
 * that each started only after the one before it had answered (a call that starts after another
 * answered is counted as waiting on it: an upper bound). Calls sent side by side count once, so
 * 100 reads in parallel are one round trip and 100 in sequence are 100, whatever the machine's speed.
 */
export function meterRoundTrips() {
  const name = `roundTrips${meters++}`;
  let finished: { end: number; depth: number }[] = [];
  let calls = 0;
  let tick = 0;
  db.middlewareStack.add(
    (next) => async (args) => {
      const start = tick++;
      const depth = 1 + Math.max(0, ...finished.filter((f) => f.end < start).map((f) => f.depth));
      calls += 1;
      try {
        return await next(args);
      } finally {
        finished.push({ end: tick++, depth });
      }
    },
    { step: 'initialize', name },
  );
  return {
    async measure<T>(step: () => Promise<T>): Promise<{ value: T; roundTrips: number; calls: number }> {
      finished = [];
      calls = 0;
      const value = await step();
      return { value, roundTrips: Math.max(0, ...finished.map((f) => f.depth)), calls };
    },
    stop: () => db.middlewareStack.remove(name),
  };
}

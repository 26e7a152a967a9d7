import { db } from '../../lib/db/core/client.ts';

let meters = 0;

/**
 * Counts the DynamoDB calls made through the shared client and the read units DynamoDB reports for
 * them (every call is sent with `ReturnConsumedCapacity: TOTAL`), until `stop`. `measure` runs one
 * step alone on the counters.
 */
export function meterReads() {
  const name = `readMeter${meters++}`;
  const meter = { units: 0, calls: 0 };
  db.middlewareStack.add(
    (next) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        meter.units += Number((c as { CapacityUnits?: number }).CapacityUnits ?? 0);
      }
      meter.calls += 1;
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    meter,
    /** Runs `step` with the counters at zero; its value with the units and calls it took. */
    async measure<T>(step: () => Promise<T>): Promise<{ value: T; units: number; calls: number }> {
      meter.units = 0;
      meter.calls = 0;
      const value = await step();
      return { value, units: meter.units, calls: meter.calls };
    },
    stop: () => db.middlewareStack.remove(name),
  };
}

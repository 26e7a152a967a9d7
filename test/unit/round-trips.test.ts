import { describe, expect, it } from 'vitest';
import { recordDbCall, withDbCallLog } from '../../lib/db/core/metrics.ts';

/** A call that answers after `ms` (recorded as the DynamoDB client's middleware records one). */
async function call(ms = 1): Promise<void> {
  const answered = recordDbCall('GetItemCommand');
  await new Promise((resolve) => setTimeout(resolve, ms));
  answered();
}

describe('serial round trips of a request (lib/db/core/metrics.ts)', () => {
  it('counts calls one after another each, calls side by side once', async () => {
    const serial = await withDbCallLog(async () => {
      await call();
      await call();
      await call();
    });
    expect(serial.log).toEqual({ calls: ['GetItemCommand', 'GetItemCommand', 'GetItemCommand'], roundTrips: 3 });
    const parallel = await withDbCallLog(() => Promise.all([call(), call(), call()]));
    expect(parallel.log.roundTrips).toBe(1);
    expect(parallel.log.calls).toHaveLength(3);
  });

  it('is the longest chain: one call, then a hundred side by side, then one', async () => {
    const { log } = await withDbCallLog(async () => {
      await call();
      await Promise.all(Array.from({ length: 100 }, () => call()));
      await call();
    });
    expect(log.calls).toHaveLength(102);
    expect(log.roundTrips).toBe(3);
  });

  it('counts a call sent while another is in flight as beside it, and one sent after it answered as after it', async () => {
    const { log } = await withDbCallLog(async () => {
      const slow = call(30);
      await call(1);
      // The fast one answered: this waits on it (2), beside the slow one.
      await call(1);
      await slow;
      // After the slow one (1) and the second fast one (2): 3.
      await call(1);
    });
    expect(log.roundTrips).toBe(3);
  });

  it('records nothing outside a request', async () => {
    await expect(call()).resolves.toBeUndefined();
  });
});

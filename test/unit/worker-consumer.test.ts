import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../../tools/local/gateway.ts';
import { workerConsumer } from '../../tools/local/worker-consumer.ts';
import { handler as busyInProcess } from '../fixtures/functions/busy-consumer.ts';

/**
 * `npm start` runs the import jobs' consumer in a worker thread (tools/local/services.ts), so that
 * one organisation's large import never holds up another's requests. What shows it is the API's
 * event loop: while a consumer computes without yielding, the loop's timers keep firing. The same
 * consumer run in-process is the control: the loop stops for as long as it computes.
 */
const BUSY_MS = 1500;
const event = { Records: [{ eventID: String(BUSY_MS) }] } as DynamoDBStreamEvent;

/** The longest the event loop went without a timer firing while `work` ran. */
async function longestStall(work: () => Promise<unknown>) {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
    longest = Math.max(longest, performance.now() - last);
  } finally {
    clearInterval(timer);
  }
  return longest;
}

describe('the local import consumer', () => {
  it("computes off the API's event loop: the loop never stalls for half the work, as it does in-process", async () => {
    const consumer = workerConsumer('test/fixtures/functions/busy-consumer.ts', 'functions/import-jobs.ts');
    try {
      // The worker starts and loads its module before the measure (as the runtime's first batch does).
      await consumer({ Records: [{ eventID: '0' }] } as DynamoDBStreamEvent, lambdaContext('import-jobs'));
      const inWorker = await longestStall(() => consumer(event, lambdaContext('import-jobs')));
      const inProcess = await longestStall(() => busyInProcess(event));
      console.log(
        `event loop's longest stall over ${BUSY_MS} ms of work: ${Math.round(inWorker)} ms in a worker, ${Math.round(inProcess)} ms in-process`,
      );
      expect(inProcess).toBeGreaterThan(BUSY_MS * 0.9);
      expect(inWorker).toBeLessThan(BUSY_MS / 2);
    } finally {
      await consumer.stop();
    }
  }, 30_000);

  it('runs batches side by side, each in a worker of its own: a quick one is not held behind a long one', async () => {
    const consumer = workerConsumer('test/fixtures/functions/busy-consumer.ts', 'functions/import-jobs.ts');
    try {
      const quick = () => consumer({ Records: [{ eventID: '0' }] } as DynamoDBStreamEvent, lambdaContext('import-jobs'));
      // Two workers started and loaded first, as two earlier batches at once leave them.
      await Promise.all([quick(), quick()]);
      let longDone = false;
      const long = consumer(event, lambdaContext('import-jobs')).then(() => (longDone = true));
      await quick();
      expect(longDone).toBe(false);
      await long;
    } finally {
      await consumer.stop();
    }
  }, 30_000);

  it('is the consumer the local runtime gives import jobs', async () => {
    const { readFile } = await import('node:fs/promises');
    const services = await readFile(new URL('../../tools/local/services.ts', import.meta.url), 'utf8');
    expect(services).toMatch(/handler: importJobs,/);
    expect(services).toMatch(/const importJobs = workerConsumer\('functions\/import-jobs\.ts'\)/);
  });
});

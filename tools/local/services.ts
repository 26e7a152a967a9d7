/**
 * Background services the local runtime runs beside the gateway (in AWS these are managed:
 * e.g. the DynamoDB Streams event source mapping that feeds the cascade consumer).
 */
import type { StreamLag } from './stream-poller.ts';

export interface LocalServices {
  stop(): Promise<void>;
  /** How far behind the table each stream consumer has run. */
  lag(): { changeFeed: StreamLag; cascade: StreamLag; importJobs: StreamLag };
}

/**
 * The cascade consumer's and the import jobs' timeout in ms (`CASCADE_TIMEOUT_MS`; default 5
 * minutes, as the CDK stack gives them). The test run sets a few milliseconds, so every cascade and
 * every import job of the suite goes through continuations, as a very large one does in AWS.
 */
const cascadeTimeoutMs = Number(process.env.CASCADE_TIMEOUT_MS) || undefined;

export async function startLocalServices(endpoint: string): Promise<LocalServices> {
  const { tableName } = await import('../../lib/db/client.ts');
  const { startStreamPoller } = await import('./stream-poller.ts');
  // The cascade consumer, fed from DynamoDB Local's stream as Lambda is fed from DynamoDB Streams.
  const poller = await startStreamPoller({ endpoint, tableName: tableName(), timeoutMs: cascadeTimeoutMs });
  // The webhook delivery queue and function (SQS and its event source mapping in AWS).
  const { startLocalDeliveryQueue } = await import('./delivery-queue.ts');
  const deliveries = await startLocalDeliveryQueue();
  // The change feed consumer, on its own mapping with its own filter, as in the stack.
  const { changeFeedParallelization, changeFeedStreamFilters, importJobStreamFilters } = await import('../../lib/db/table.ts');
  // The import jobs' consumer, on its own mapping, with the cascade's deadline (CASCADE_TIMEOUT_MS).
  const jobs = await startStreamPoller({
    endpoint,
    tableName: tableName(),
    functionModule: 'functions/import-jobs.ts',
    filters: importJobStreamFilters,
    timeoutMs: cascadeTimeoutMs,
  });
  const feed = await startStreamPoller({
    endpoint,
    tableName: tableName(),
    functionModule: 'functions/change-feed.ts',
    filters: changeFeedStreamFilters,
    parallelizationFactor: changeFeedParallelization,
  });
  return {
    lag: () => ({ changeFeed: feed.lag(), cascade: poller.lag(), importJobs: jobs.lag() }),
    stop: async () => {
      await Promise.all([poller.stop(), jobs.stop(), feed.stop()]);
      await deliveries.stop();
    },
  };
}

/**
 * Background services the local runtime runs beside the gateway (in AWS these are managed:
 * e.g. the DynamoDB Streams event source mapping that feeds the cascade consumer).
 */
import type { StreamLag } from './stream-poller.ts';

export interface LocalServices {
  stop(): Promise<void>;
  /** How far behind the table each stream consumer has run. */
  lag(): { cascade: StreamLag; changeFeed: StreamLag };
}

/**
 * The cascade consumer's timeout in ms (`CASCADE_TIMEOUT_MS`; default 5 minutes, as the CDK stack
 * gives it). The test run sets a few milliseconds, so every cascade of the suite goes through
 * continuations, as a very large one does in AWS.
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
  const { changeFeedParallelization, changeFeedStreamFilters } = await import('../../lib/db/table.ts');
  const feed = await startStreamPoller({
    endpoint,
    tableName: tableName(),
    functionModule: 'functions/change-feed.ts',
    filters: changeFeedStreamFilters,
    parallelizationFactor: changeFeedParallelization,
  });
  return {
    lag: () => ({ cascade: poller.lag(), changeFeed: feed.lag() }),
    stop: async () => {
      await Promise.all([poller.stop(), feed.stop()]);
      await deliveries.stop();
    },
  };
}

/**
 * Background services the local runtime runs beside the gateway (in AWS these are managed:
 * e.g. the DynamoDB Streams event source mapping that feeds the cascade consumer).
 */
export interface LocalServices {
  stop(): Promise<void>;
}

export async function startLocalServices(endpoint: string): Promise<LocalServices> {
  const { tableName } = await import('../../lib/db/client.ts');
  const { startStreamPoller } = await import('./stream-poller.ts');
  // The cascade consumer, fed from DynamoDB Local's stream as Lambda is fed from DynamoDB Streams.
  const poller = await startStreamPoller({ endpoint, tableName });
  // The webhook delivery queue and function (SQS and its event source mapping in AWS).
  const { startLocalDeliveryQueue } = await import('./delivery-queue.ts');
  const deliveries = await startLocalDeliveryQueue();
  // The change feed consumer, on its own mapping with its own filter, as in the stack.
  const { changeFeedStreamFilters } = await import('../../lib/db/table.ts');
  const feed = await startStreamPoller({
    endpoint,
    tableName,
    functionModule: 'functions/change-feed.ts',
    filters: changeFeedStreamFilters,
  });
  return {
    stop: async () => {
      await Promise.all([poller.stop(), feed.stop()]);
      await deliveries.stop();
    },
  };
}

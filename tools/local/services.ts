/**
 * Background services the local runtime runs beside the gateway (in AWS these are managed:
 * e.g. the DynamoDB Streams event source mapping that feeds the cascade consumer).
 */
import type { StreamLag, StreamReader } from './stream-poller.ts';

export interface LocalServices {
  stop(): Promise<void>;
  /** How far behind the table each stream consumer has run. */
  lag(): {
    changeFeed: StreamLag;
    cascade: StreamLag;
    importJobs: StreamLag;
    githubEvents: StreamLag;
    reads: ReturnType<StreamReader['reads']>;
  };
}

/**
 * The cascade consumer's and the import jobs' timeout in ms (`CASCADE_TIMEOUT_MS`; default 5
 * minutes, as the CDK stack gives them). The test run sets a few milliseconds, so every cascade and
 * every import job of the suite goes through continuations, as a very large one does in AWS.
 */
const cascadeTimeoutMs = Number(process.env.CASCADE_TIMEOUT_MS) || undefined;

/**
 * The shards the local stream is read as (`STREAM_SHARDS`, default 1): DynamoDB Local keeps one
 * for the whole table, AWS one per partition of the table (tools/local/stream-poller.ts). The test
 * run, many organisations writing at once, reads it as a table of several partitions.
 */
export function streamShards(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const shards = Number(value);
  if (!Number.isInteger(shards) || shards < 1 || shards > 100) {
    throw new Error(`STREAM_SHARDS must be a whole number from 1 to 100 (got ${JSON.stringify(value)})`);
  }
  return shards;
}

/**
 * How often the local stack runs the expiries AWS runs itself (`LOCAL_EXPIRY_SWEEP_SECONDS`, default
 * a minute; 0: never): DynamoDB's TTL of pending attachments, the bucket's lifecycle rule of staged
 * files (tools/local/expiry.ts). The test run sets 0: its tests sweep themselves, with their own clock.
 */
const expirySweepSeconds = Number(process.env.LOCAL_EXPIRY_SWEEP_SECONDS ?? 60);

export async function startLocalServices(endpoint: string): Promise<LocalServices> {
  const { tableName } = await import('../../lib/db/core/client.ts');
  const { startStreamReader, streamConsumer } = await import('./stream-poller.ts');
  const { startExpirySweeps } = await import('./expiry.ts');
  const { changeFeedParallelization, changeFeedStreamFilters, githubEventStreamFilters, importJobStreamFilters } =
    await import('../../lib/db/core/table.ts');
  // The webhook delivery queue and function (SQS and its event source mapping in AWS).
  const { startLocalDeliveryQueue } = await import('./delivery-queue.ts');
  const deliveries = await startLocalDeliveryQueue();
  // The stack's four event source mappings on the table's stream, as Lambda feeds them from
  // DynamoDB Streams: the stream read once, each record handed to the mappings whose filters pass it.
  const shards = streamShards(process.env.STREAM_SHARDS);
  // The import jobs' consumer runs in a worker thread, as in a Lambda of its own: a job reading a
  // large file never holds up the gateway's requests (tools/local/worker-consumer.ts).
  const { workerConsumer } = await import('./worker-consumer.ts');
  const importJobs = workerConsumer('functions/import-jobs.ts');
  const reader = await startStreamReader({ endpoint, tableName: tableName(), ...(shards ? { shards } : {}) }, [
    // The change feed consumer, with its own filter and lanes.
    {
      functionModule: 'functions/change-feed.ts',
      filters: changeFeedStreamFilters,
      parallelizationFactor: changeFeedParallelization,
    },
    // The cascade consumer.
    { timeoutMs: cascadeTimeoutMs },
    // The import jobs' consumer, with the cascade's deadline (CASCADE_TIMEOUT_MS).
    {
      functionModule: 'functions/import-jobs.ts',
      handler: importJobs,
      filters: importJobStreamFilters,
      timeoutMs: cascadeTimeoutMs,
    },
    // The GitHub deliveries' consumer, on this thread (a delivery is a few reads and writes), with
    // the stack's timeout of a minute.
    { functionModule: 'functions/github-events.ts', filters: githubEventStreamFilters, timeoutMs: 60_000 },
  ]);
  const sweeps =
    expirySweepSeconds > 0
      ? startExpirySweeps(await streamConsumer('functions/cascade.ts'), expirySweepSeconds, (line) => console.error(line))
      : undefined;
  return {
    lag: () => {
      const [changeFeed, cascade, importJobs, githubEvents] = reader.lags() as [StreamLag, StreamLag, StreamLag, StreamLag];
      return { changeFeed, cascade, importJobs, githubEvents, reads: reader.reads() };
    },
    stop: async () => {
      await sweeps?.stop();
      await reader.stop();
      await importJobs.stop();
      await deliveries.stop();
    },
  };
}

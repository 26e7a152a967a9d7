import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { PendingCascade } from '../lib/jobs/cascade.ts';
import { logger } from '../lib/http/logger.ts';
import { countMetric, metricNames, publishMetrics } from '../lib/http/metrics.ts';

/** Time kept in reserve to answer before the Lambda timeout (at most half of it): no new page starts after that. */
const RESERVE_MS = 10_000;
/**
 * The cascade's data layer (and with it the DynamoDB client) loads on the first batch, not at init,
 * as the migration function's runner does: nothing waits on a stream consumer's cold start. In the
 * one-file bundle, the `import()` makes esbuild wrap every module it reaches, the data layer and
 * the SDK included, in lazy initialisers; imported statically here, they would all be evaluated at
 * init anyway, whole (tools/bench/README.md).
 */
const cascadeData = () => import('../lib/jobs/cascade.ts');
/** The failure queue (infra/constructs/cascade-consumer.ts); unset locally, where the log says it. */
const failureQueueUrl = process.env.CASCADE_FAILURE_QUEUE_URL;

/** Announces a cascade given up on the failure queue (the SQS client loads only then). */
async function notifyFailure(pending: PendingCascade): Promise<void> {
  const { failureMessage, sendFailureMessage } = await cascadeData();
  const message = failureMessage(pending);
  logger.error('cascade given up; resume it with the command in `resume`', { ...message });
  if (!failureQueueUrl) return;
  await sendFailureMessage(failureQueueUrl, message);
}

/**
 * DynamoDB Streams consumer: removes what lived under a deleted project, sprint or issue
 * (lib/jobs/cascade.ts), and continues the cascades that an earlier invocation wrote down as
 * pending (out of time, or failed). Partial batch failure: the stream resumes from the first record
 * whose outcome could not be written down (the event source mapping sets
 * ReportBatchItemFailures); all the work is idempotent, so records replayed after it are harmless.
 */
async function cascade(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const remaining = context?.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? undefined : Date.now() + remaining - Math.min(RESERVE_MS, remaining / 2);
  const started = Date.now();
  const { cascadeBatch } = await cascadeData();
  const result = await cascadeBatch(event.Records, { deadline, notifyFailure });
  for (const err of result.errors) logger.error('cascade failed', err as Error);
  if (result.parents > 0 || result.continued > 0 || result.deleted > 0) {
    logger.info('cascade batch', {
      records: event.Records.length,
      parents: result.parents,
      skipped: result.skipped,
      deleted: result.deleted,
      continued: result.continued,
      givenUp: result.givenUp,
      retryFrom: result.firstFailure,
      ms: Date.now() - started,
    });
  }
  if (result.deleted > 0) {
    countMetric(metricNames.cascadeItemsRemoved, result.deleted);
    publishMetrics();
  }
  return { batchItemFailures: result.firstFailure ? [{ itemIdentifier: result.firstFailure }] : [] };
}

/** Every log line carries the Lambda context (request id, cold start...), as on the routes. */
// The consumer keeps its own deadline (RESERVE_MS): middy's early timeout would abort a cascade mid-page.
export const handler = middy(cascade, { timeoutEarlyInMillis: 0 }).use(injectLambdaContext(logger, { resetKeys: true }));

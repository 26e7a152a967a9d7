import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { cascadeBatch } from '../lib/db/cascade.ts';
import { logger } from '../lib/http/logger.ts';
import { countMetric, metricNames, publishMetrics } from '../lib/http/metrics.ts';

/** Time kept in reserve to answer before the Lambda timeout: no new page starts after that. */
const RESERVE_MS = 10_000;

/**
 * DynamoDB Streams consumer: removes what lived under a deleted project, sprint or issue
 * (lib/db/cascade.ts). Partial batch failure: the stream resumes from the first record whose
 * cascade did not finish (the event source mapping sets ReportBatchItemFailures); all the work is
 * idempotent, so records replayed after it are harmless.
 */
export const handler = async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
  const remaining = context?.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? undefined : Date.now() + Math.max(1000, remaining - RESERVE_MS);
  const started = Date.now();
  const result = await cascadeBatch(event.Records, { deadline });
  for (const err of result.errors) logger.error('cascade failed', err as Error);
  if (result.parents > 0) {
    logger.info('cascade batch', {
      records: event.Records.length,
      parents: result.parents,
      skipped: result.skipped,
      deleted: result.deleted,
      retryFrom: result.firstFailure,
      ms: Date.now() - started,
    });
  }
  if (result.deleted > 0) {
    countMetric(metricNames.cascadeItemsRemoved, result.deleted);
    publishMetrics();
  }
  return { batchItemFailures: result.firstFailure ? [{ itemIdentifier: result.firstFailure }] : [] };
};

import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { feedBatch } from '../lib/feed/consume.ts';
import { logger } from '../lib/http/logger.ts';
import { batchPublisher } from '../lib/webhooks/fanout.ts';

/**
 * DynamoDB Streams consumer of every write of projects, sprints, issues and comments: records the
 * activity history (lib/feed/consume.ts) and queues the webhook deliveries (lib/webhooks/fanout.ts). A consumer of its own, beside the cascade's, so that
 * this work never delays a cascade. Partial batch failure: the stream resumes from the first
 * record not handled; the work is idempotent.
 */
async function changeFeed(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const publisher = batchPublisher();
  const result = await feedBatch(event.Records, { publish: publisher.publish, other: publisher.redeliver });
  for (const err of result.errors) logger.error('change feed failed', err as Error);
  if (result.events > 0) {
    logger.info('change feed batch', { records: event.Records.length, events: result.events, activities: result.activities });
  }
  return { batchItemFailures: result.firstFailure ? [{ itemIdentifier: result.firstFailure }] : [] };
}

export const handler = middy(changeFeed).use(injectLambdaContext(logger, { resetKeys: true }));

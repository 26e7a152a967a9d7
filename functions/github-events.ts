import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../lib/http/logger.ts';

import { handleGitHubDeliveries } from '../lib/services/github-events.ts';

/**
 * DynamoDB Streams consumer of the GitHub deliveries the receiver stored (functions/github/receive.ts),
 * on a mapping of its own (lib/db/core/table.ts: githubEventStreamFilters): links the issues each
 * delivery names to its pull request, branch or commit, and moves their status when the project
 * asks for it (lib/services/github-events.ts). Partial batch failure: a delivery it could not handle
 * is reported and retried; the work is idempotent.
 */
async function githubDeliveries(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  try {
    const result = await handleGitHubDeliveries(event.Records);
    if (result.batchItemFailures.length > 0) {
      logger.error('GitHub deliveries failed', {
        records: event.Records.length,
        failed: result.batchItemFailures.map((f) => f.itemIdentifier),
      });
    }
    return result;
  } catch (err) {
    logger.error('GitHub delivery batch failed', err as Error);
    throw err;
  }
}

export const handler = middy(githubDeliveries).use(injectLambdaContext(logger, { resetKeys: true }));

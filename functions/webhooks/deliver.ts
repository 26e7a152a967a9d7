import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../lib/http/logger.ts';
import { processDelivery } from '../../lib/webhooks/deliver.ts';
import type { DeliveryMessage } from '../../lib/webhooks/queue.ts';

/**
 * The delivery function, fed by the delivery queue: each message is one attempt, all of a batch run
 * at once (a slow receiver holds up nothing but its own message), and a message that failed to run
 * (not a failed attempt: those are recorded and re-queued) is reported alone for SQS to retry.
 */
async function deliver(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as DeliveryMessage;
        const outcome = await processDelivery(message);
        logger.info('webhook delivery', { deliveryId: message.deliveryId, attempt: message.attempt, outcome });
      } catch (err) {
        logger.error('webhook delivery failed to run', err as Error);
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}

export const handler = middy(deliver).use(injectLambdaContext(logger, { resetKeys: true }));

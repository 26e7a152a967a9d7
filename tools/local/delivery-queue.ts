import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { useLocalDeliveryQueue, type DeliveryMessage, type DeliveryQueue } from '../../lib/webhooks/queue.ts';
import { lambdaContext, loadHandler } from './gateway.ts';

/**
 * The local stand-in for the SQS delivery queue and its Lambda event source: messages wait out
 * their delay, then the delivery function (functions/webhooks/deliver.ts, the module Lambda runs)
 * gets each in an event of its own, up to `concurrency` at once, so a slow receiver holds up only
 * its own messages. A message the function reports failed comes back after `retryMs`, as an SQS
 * message does after its visibility timeout.
 */
export interface LocalDeliveryQueue {
  stop(): Promise<void>;
}

export async function startLocalDeliveryQueue(
  options: { concurrency?: number; retryMs?: number } = {},
): Promise<LocalDeliveryQueue> {
  const handler = await loadHandler<SQSEvent, SQSBatchResponse>('functions/webhooks/deliver.ts');
  const concurrency = options.concurrency ?? 16;
  const retryMs = options.retryMs ?? 1000;
  const ready: DeliveryMessage[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  const later = (fn: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const pump = () => {
    while (!stopped && running.size < concurrency && ready.length > 0) {
      const message = ready.shift() as DeliveryMessage;
      const messageId = randomUUID();
      const run = (async () => {
        const event = { Records: [{ messageId, body: JSON.stringify(message) }] } as unknown as SQSEvent;
        try {
          const out = await handler(event, lambdaContext('webhook-delivery'));
          if (out?.batchItemFailures?.length) later(() => enqueue(message), retryMs);
        } catch {
          later(() => enqueue(message), retryMs);
        }
      })();
      running.add(run);
      void run.finally(() => {
        running.delete(run);
        pump();
      });
    }
  };

  const enqueue = (message: DeliveryMessage) => {
    if (stopped) return;
    ready.push(message);
    pump();
  };

  const queue: DeliveryQueue = {
    async send(messages, delaySeconds) {
      for (const message of messages) {
        if (delaySeconds > 0) later(() => enqueue(message), delaySeconds * 1000);
        else enqueue(message);
      }
    },
  };
  useLocalDeliveryQueue(queue);

  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.allSettled([...running]);
      useLocalDeliveryQueue(undefined);
    },
  };
}

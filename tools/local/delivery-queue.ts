import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config.ts';
import { messageGroupOf, nextMessage, type Lane } from '../../lib/model/fairness.ts';
import { useLocalDeliveryQueue, type DeliveryMessage, type DeliveryQueue } from '../../lib/webhooks/queue.ts';
import { lambdaContext, loadHandler } from './gateway.ts';

/**
 * The local stand-in for the two SQS delivery queues (the fast and the slow lane) and their Lambda
 * event sources: messages wait out their delay, then the delivery function
 * (functions/webhooks/deliver.ts, the module Lambda runs) gets each in an event of its own, up to
 * the lane's concurrency at once (`WEBHOOK_CONCURRENCY`, `WEBHOOK_SLOW_CONCURRENCY`; the deliverer
 * derives the per-organisation cap from the same numbers). Which waiting message goes next is the
 * fair queue's rule (lib/model/fairness.ts): the organisation with the fewest in flight first.
 * A message the function reports failed comes back after `retryMs`, as an SQS message does after
 * its visibility timeout.
 */
export interface LocalDeliveryQueue {
  stop(): Promise<void>;
}

interface LaneState {
  concurrency: number;
  ready: { group: string; message: DeliveryMessage }[];
  inFlight: Map<string, number>;
  running: Set<Promise<void>>;
}

export async function startLocalDeliveryQueue(
  options: { concurrency?: Partial<Record<Lane, number>>; retryMs?: number } = {},
): Promise<LocalDeliveryQueue> {
  const handler = await loadHandler<SQSEvent, SQSBatchResponse>('functions/webhooks/deliver.ts');
  const retryMs = options.retryMs ?? 1000;
  const lane = (name: Lane): LaneState => ({
    concurrency: options.concurrency?.[name] ?? config().webhooks.concurrency[name],
    ready: [],
    inFlight: new Map(),
    running: new Set(),
  });
  const lanes: Record<Lane, LaneState> = { fast: lane('fast'), slow: lane('slow') };
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const later = (fn: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const pump = (state: LaneState) => {
    while (!stopped && state.running.size < state.concurrency && state.ready.length > 0) {
      const [{ group, message }] = state.ready.splice(nextMessage(state.ready, state.inFlight), 1) as [
        { group: string; message: DeliveryMessage },
      ];
      state.inFlight.set(group, (state.inFlight.get(group) ?? 0) + 1);
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
      state.running.add(run);
      void run.finally(() => {
        state.running.delete(run);
        const left = (state.inFlight.get(group) ?? 1) - 1;
        if (left > 0) state.inFlight.set(group, left);
        else state.inFlight.delete(group);
        pump(state);
      });
    }
  };

  const enqueue = (message: DeliveryMessage) => {
    if (stopped) return;
    const state = lanes[message.lane ?? 'fast'];
    state.ready.push({ group: messageGroupOf(message), message });
    pump(state);
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
      await Promise.allSettled([...lanes.fast.running, ...lanes.slow.running]);
      useLocalDeliveryQueue(undefined);
    },
  };
}

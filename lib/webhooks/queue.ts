import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';

/**
 * The delivery queue: one message per (endpoint, event) attempt. In AWS an SQS queue (its own
 * delays hold a retry back, at most 15 minutes a hop); locally an in-process queue that honours the
 * same delays (tools/local/delivery-queue.ts), registered on `globalThis` by the local runtime.
 */
export interface DeliveryMessage {
  orgId: number;
  webhookId: number;
  deliveryId: string;
  /** The attempt this message is for, from 1. */
  attempt: number;
  /** When the first attempt of this round was made (ISO), null before it: the retry window's start. */
  firstAttemptAt: string | null;
  /** Not to be attempted before this (epoch ms): a wait longer than one hop takes several. */
  notBefore: number;
}

export interface DeliveryQueue {
  send(messages: DeliveryMessage[], delaySeconds: number): Promise<void>;
}

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

const LOCAL_QUEUE = Symbol.for('sprint-ticketing.delivery-queue');

/** Registers the in-process queue of the local runtime. */
export function useLocalDeliveryQueue(queue: DeliveryQueue | undefined): void {
  (globalThis as Record<symbol, unknown>)[LOCAL_QUEUE] = queue;
}

let sqs: SQSClient | undefined;

function sqsQueue(url: string): DeliveryQueue {
  sqs ??= new SQSClient({});
  const client = sqs;
  return {
    async send(messages, delaySeconds) {
      for (let i = 0; i < messages.length; i += 10) {
        const batch = messages.slice(i, i + 10);
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: batch.map((m, n) => ({
              Id: String(n),
              MessageBody: JSON.stringify(m),
              DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
            })),
          }),
        );
        if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} delivery message(s)`);
      }
    },
  };
}

/** The queue of this environment: SQS when DELIVERY_QUEUE_URL is set, else the local one. */
export function deliveryQueue(): DeliveryQueue {
  if (config.deliveryQueueUrl) return sqsQueue(config.deliveryQueueUrl);
  const local = (globalThis as Record<symbol, unknown>)[LOCAL_QUEUE] as DeliveryQueue | undefined;
  if (!local) throw new Error('no delivery queue: DELIVERY_QUEUE_URL is not set and no local queue runs');
  return local;
}

import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import { messageGroupOf, type Lane } from '../model/fairness.ts';

/**
 * The delivery queue: one message per (endpoint, event) attempt, in one of two lanes (the slow one
 * for endpoints that keep timing out). In AWS an SQS fair queue per lane, each message in its
 * organisation's message group (its own delays hold a retry back, at most 15 minutes a hop);
 * locally an in-process queue with the same lanes, order and delays
 * (tools/local/delivery-queue.ts), registered on `globalThis` by the local runtime.
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
  /** The lane it is queued in; absent is the fast lane. */
  lane?: Lane;
  /** Times it was put back for its organisation's cap (lib/model/fairness.ts). */
  deferrals?: number;
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

function sqsQueue(urls: Record<Lane, string>): DeliveryQueue {
  sqs ??= new SQSClient({});
  const client = sqs;
  return {
    async send(messages, delaySeconds) {
      for (const lane of ['fast', 'slow'] as const) {
        const ofLane = messages.filter((m) => (m.lane ?? 'fast') === lane);
        for (let i = 0; i < ofLane.length; i += 10) {
          const batch = ofLane.slice(i, i + 10);
          const out = await client.send(
            new SendMessageBatchCommand({
              QueueUrl: urls[lane],
              Entries: batch.map((m, n) => ({
                Id: String(n),
                MessageBody: JSON.stringify(m),
                // A fair queue: SQS serves quiet organisations first while one has a backlog.
                MessageGroupId: messageGroupOf(m),
                DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
              })),
            }),
          );
          if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} delivery message(s)`);
        }
      }
    },
  };
}

/** The queue of this environment: SQS when DELIVERY_QUEUE_URL is set, else the local one. */
export function deliveryQueue(): DeliveryQueue {
  const { deliveryQueueUrl: fast, slowDeliveryQueueUrl: slow } = config();
  if (fast) return sqsQueue({ fast, slow: slow ?? fast });
  const local = (globalThis as Record<symbol, unknown>)[LOCAL_QUEUE] as DeliveryQueue | undefined;
  if (!local) throw new Error('no delivery queue: DELIVERY_QUEUE_URL is not set and no local queue runs');
  return local;
}

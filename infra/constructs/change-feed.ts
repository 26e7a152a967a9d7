import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { changeFeedParallelization, changeFeedStreamFilters } from '../../lib/db/core/table.ts';
import { LANE_CONCURRENCY } from '../../lib/model/fairness.ts';
import { changeFeedEntry, deliveryEntry } from '../functions.ts';
import { changeFeedGrant, deliveryGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';
import { consumeStream } from './stream-consumer.ts';

export interface ChangeFeedProps {
  table: ServiceTable;
  logs: ServiceFunctionProps['logs'];
  /** Environment every function of the stage gets (its stage, metrics settings). */
  environment?: Record<string, string>;
}

/**
 * The change feed (docs/change-feed.md), from managed pieces:
 * - `functions/change-feed.ts` on the table's stream, on an event source mapping of its own (a slow
 *   change feed never delays the cascade's), filtered by Lambda to the writes it reports; it writes
 *   the activity history and sends one message per (endpoint, event) to the delivery queue;
 * - the delivery queues (SQS), whose message delays hold retries back (at most 15 minutes a hop):
 *   the fast lane, and the slow lane for endpoints that keep timing out; both are fair queues
 *   (every message carries its organisation as message group: lib/webhooks/queue.ts);
 * - `functions/webhooks/deliver.ts` on both, on a mapping per lane with its own maximum concurrency
 *   (lib/model/fairness.ts: an organisation holds at most a fifth of a lane): each message one
 *   attempt, a batch's messages in parallel, failures reported per message; a message that keeps
 *   failing to run (not a failed attempt, which is recorded and re-queued) ends in the dead-letter
 *   queue, shared by both lanes.
 */
export class ChangeFeed extends Construct {
  readonly consumer: ServiceFunction;
  /** Stream records the consumer gave up on, with their stream position. */
  readonly failures: Queue;
  readonly deliveries: Queue;
  /** The slow lane: endpoints whose attempts keep taking half the timeout or more. */
  readonly slowDeliveries: Queue;
  readonly deadLetters: Queue;
  readonly deliverer: ServiceFunction;

  constructor(scope: Construct, id: string, props: ChangeFeedProps) {
    super(scope, id);
    const tableName = props.table.table.tableName;
    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };

    this.deadLetters = new Queue(this, 'DeliveryDeadLetters', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    const deliveryTimeout = Duration.seconds(30);
    const deliveryQueueProps = {
      ...queueDefaults,
      // Lambda's advice: at least six times the consumer's timeout.
      visibilityTimeout: Duration.seconds(deliveryTimeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
    };
    // Standard queues: fairness needs no setting, only a message group on every message.
    this.deliveries = new Queue(this, 'Deliveries', deliveryQueueProps);
    this.slowDeliveries = new Queue(this, 'SlowDeliveries', deliveryQueueProps);
    const queueUrls = {
      DELIVERY_QUEUE_URL: this.deliveries.queueUrl,
      SLOW_DELIVERY_QUEUE_URL: this.slowDeliveries.queueUrl,
    };

    this.consumer = new ServiceFunction(this, 'Consumer', {
      entry: changeFeedEntry,
      description: 'Change feed: activity history and webhook deliveries from the table stream',
      environment: { ...props.environment, TABLE_NAME: tableName, ...queueUrls },
      timeout: Duration.minutes(1),
      logs: props.logs,
    });
    props.table.grant(this.consumer, changeFeedGrant);
    this.deliveries.grantSendMessages(this.consumer);
    this.slowDeliveries.grantSendMessages(this.consumer);
    this.failures = consumeStream(this, this.consumer, props.table, {
      filters: changeFeedStreamFilters,
      parallelizationFactor: changeFeedParallelization,
      retryAttempts: 10,
      what: 'change feed',
    });

    this.deliverer = new ServiceFunction(this, 'Deliverer', {
      entry: deliveryEntry,
      description: 'Webhook delivery: one signed POST per queue message, retried through the queue',
      environment: {
        ...props.environment,
        TABLE_NAME: tableName,
        ...queueUrls,
        // The per-organisation caps are a fifth of these (lib/model/fairness.ts).
        WEBHOOK_CONCURRENCY: String(LANE_CONCURRENCY.fast),
        WEBHOOK_SLOW_CONCURRENCY: String(LANE_CONCURRENCY.slow),
      },
      // A batch's messages go in parallel, each waiting at most 10 s for its receiver.
      timeout: deliveryTimeout,
      logs: props.logs,
    });
    props.table.grant(this.deliverer, deliveryGrant);
    // It re-queues its own retries, deferrals and lane moves; the event source mappings grant the
    // receive and delete.
    for (const [queue, lane] of [
      [this.deliveries, 'fast'],
      [this.slowDeliveries, 'slow'],
    ] as const) {
      queue.grantSendMessages(this.deliverer);
      this.deliverer.addEventSource(
        new SqsEventSource(queue, {
          batchSize: 10,
          reportBatchItemFailures: true,
          maxConcurrency: LANE_CONCURRENCY[lane],
        }),
      );
    }
  }
}

import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { cascadeStreamFilters } from '../../lib/db/table.ts';
import { cascadeEntry } from '../functions.ts';
import { cascadeGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface CascadeConsumerProps {
  table: ServiceTable;
  logs: ServiceFunctionProps['logs'];
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
}

/**
 * `functions/cascade.ts` on the table's stream: only REMOVE events of projects, sprints and
 * issues, and writes of pending cascades to continue, reach it (filtered by Lambda, so other
 * writes cost no invocation; lib/db/table.ts). A cascade out of time or failing is written down
 * in the table and continued by the next invocation; one given up after its attempts is announced
 * on the failure queue with everything `npm run admin -- cascade:resume` needs. A record whose
 * outcome could not even be written down is retried a bounded number of times, the batch split
 * around it, and then its stream position goes to the same queue, so one bad record never stalls
 * the shard. Any message on that queue raises the alarm.
 */
export class CascadeConsumer extends Construct {
  readonly fn: ServiceFunction;
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: CascadeConsumerProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      entry: cascadeEntry,
      description: 'Removes the children of deleted projects, sprints and issues (table stream)',
      environment: { ...props.environment, TABLE_NAME: props.table.table.tableName },
      // A project of 10,000 issues is removed page by page within one invocation.
      timeout: Duration.minutes(5),
      logs: props.logs,
    });
    props.table.grant(this.fn, cascadeGrant);
    this.failures = new Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.fn.addEnvironment('CASCADE_FAILURE_QUEUE_URL', this.failures.queueUrl);
    this.failures.grantSendMessages(this.fn);
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is itself the dead-letter destination of the stream's event source mapping",
    });
    this.fn.addEventSource(
      new DynamoEventSource(props.table.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        retryAttempts: 5,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.failures),
        // The same patterns the local stream poller applies (lib/db/table.ts).
        filters: cascadeStreamFilters.map((pattern) =>
          FilterCriteria.filter(structuredClone(pattern) as Record<string, unknown>),
        ),
      }),
    );
    Validations.of(this.fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams, added by the event source mapping, supports no resource ARN (only "*")',
    });
  }
}

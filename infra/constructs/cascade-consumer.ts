import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { cascadeEntry } from '../functions.ts';
import { cascadeGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

/** The item types whose deletion leaves children for the consumer to remove. */
export const cascadingTypes = ['project', 'sprint', 'issue'] as const;

export interface CascadeConsumerProps {
  table: ServiceTable;
  logs: ServiceFunctionProps['logs'];
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
}

/**
 * `functions/cascade.ts` on the table's stream: only REMOVE events of projects, sprints and
 * issues reach it (filtered by Lambda, so other writes cost no invocation). A failing record is
 * retried a bounded number of times, the batch split around it, and then sent to a queue with its
 * stream position for an operator to look at, so one bad record never stalls the shard.
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
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('REMOVE'),
            dynamodb: { OldImage: { type: { S: FilterRule.or(...cascadingTypes) } } },
          }),
        ],
      }),
    );
    Validations.of(this.fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams, added by the event source mapping, supports no resource ARN (only "*")',
    });
  }
}

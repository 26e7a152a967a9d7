import { Duration } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { cascadingTypes } from '../../lib/db/keys.ts';
import { cascadeEntry } from '../functions.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface CascadeConsumerProps {
  table: ServiceTable;
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
      environment: { TABLE_NAME: props.table.table.tableName },
      // A project of 10,000 issues is removed page by page within one invocation.
      timeout: Duration.minutes(5),
    });
    props.table.grant(this.fn, 'write');
    this.failures = new Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
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
  }
}

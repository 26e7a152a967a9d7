import { Duration } from 'aws-cdk-lib';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { changeFeedStreamFilters } from '../../lib/db/table.ts';
import { changeFeedEntry } from '../functions.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface ChangeFeedProps {
  table: ServiceTable;
}

/**
 * `functions/change-feed.ts` on the table's stream, on an event source mapping of its own (so a
 * slow change feed never delays the cascade's): every insert, modify and remove of projects,
 * sprints, issues and comments reaches it, filtered by Lambda; it writes the activity history.
 */
export class ChangeFeed extends Construct {
  readonly consumer: ServiceFunction;
  /** Stream records the consumer gave up on, with their stream position. */
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: ChangeFeedProps) {
    super(scope, id);
    this.consumer = new ServiceFunction(this, 'Consumer', {
      entry: changeFeedEntry,
      description: 'Change feed: activity history from the table stream',
      environment: { TABLE_NAME: props.table.table.tableName },
      timeout: Duration.minutes(1),
    });
    props.table.grant(this.consumer, 'write');
    this.failures = new Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.consumer.addEventSource(
      new DynamoEventSource(props.table.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        retryAttempts: 10,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.failures),
        filters: changeFeedStreamFilters.map((pattern) => FilterCriteria.filter(pattern as unknown as Record<string, unknown>)),
      }),
    );
  }
}

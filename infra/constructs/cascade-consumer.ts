import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { cascadeStreamFilters } from '../../lib/db/table.ts';
import { cascadeEntry } from '../functions.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface CascadeConsumerProps {
  table: ServiceTable;
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
  readonly failuresAlarm: Alarm;

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
    this.fn.addEnvironment('CASCADE_FAILURE_QUEUE_URL', this.failures.queueUrl);
    this.failures.grantSendMessages(this.fn);
    this.failuresAlarm = new Alarm(this, 'FailuresAlarm', {
      alarmDescription: 'A cascade was given up (or a stream record could not be handled): see docs/limits.md, cascade:resume',
      metric: this.failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
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
  }
}

import { Duration } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { cascadeStreamFilters } from '../../lib/db/core/table.ts';
import { cascadeEntry } from '../functions.ts';
import { cascadeGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';
import { consumeStream } from './stream-consumer.ts';

export interface CascadeConsumerProps {
  table: ServiceTable;
  logs: ServiceFunctionProps['logs'];
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
}

/**
 * `functions/cascade.ts` on the table's stream: only REMOVE events of projects, sprints and
 * issues, and writes of pending cascades to continue, reach it (filtered by Lambda, so other
 * writes cost no invocation; lib/db/core/table.ts). A cascade out of time or failing is written down
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
    this.failures = consumeStream(this, this.fn, props.table, {
      filters: cascadeStreamFilters,
      retryAttempts: 5,
      what: 'stream',
    });
    this.fn.addEnvironment('CASCADE_FAILURE_QUEUE_URL', this.failures.queueUrl);
    this.failures.grantSendMessages(this.fn);
  }
}

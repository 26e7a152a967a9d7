import { Duration } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { importJobStreamFilters } from '../../lib/db/core/table.ts';
import { importJobsEntry } from '../functions.ts';
import { importJobsGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';
import { consumeStream } from './stream-consumer.ts';

export interface ImportJobsProps {
  table: ServiceTable;
  /**
   * Where a stream record the function gave up on goes: the cascade consumer's failure queue,
   * shared (a queue of its own, with its policy and alarm, would take the stack past
   * CloudFormation's 500 resources). Lambda's record names the function it failed in.
   */
  failures: Queue;
  logs: ServiceFunctionProps['logs'];
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
}

/**
 * `functions/import-jobs.ts` on the table's stream, on a mapping of its own: only the writes of
 * import jobs queued to run reach it (filtered by Lambda, lib/db/core/table.ts). A job runs until done
 * or the function's deadline, then is written `queued` again, which brings it back; so a long
 * import never holds up a cascade, and the cascade's bundle carries none of the import code. A
 * record the function could not handle goes, after its retries, to the stream consumers' failure
 * queue (the cascade's), whose alarm any message raises.
 */
export class ImportJobs extends Construct {
  readonly fn: ServiceFunction;
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: ImportJobsProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      entry: importJobsEntry,
      description: 'Runs queued import jobs, each until done or its deadline (table stream)',
      environment: { ...props.environment, TABLE_NAME: props.table.table.tableName },
      timeout: Duration.minutes(5),
      logs: props.logs,
    });
    props.table.grant(this.fn, importJobsGrant);
    this.failures = consumeStream(this, this.fn, props.table, {
      filters: importJobStreamFilters,
      retryAttempts: 5,
      what: 'import jobs',
      failures: props.failures,
    });
  }
}

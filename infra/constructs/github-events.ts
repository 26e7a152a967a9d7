import { Duration } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { githubEventStreamFilters } from '../../lib/db/core/table.ts';
import { githubEventsEntry } from '../functions.ts';
import { githubEventsGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';
import { consumeStream } from './stream-consumer.ts';

export interface GitHubEventsProps {
  table: ServiceTable;
  /**
   * Where a stream record the function gave up on goes: the cascade consumer's failure queue,
   * shared as the import jobs share it (a queue of its own, with its policy and alarm, would cost
   * the parent stack resources). Lambda's record names the function it failed in.
   */
  failures: Queue;
  logs: ServiceFunctionProps['logs'];
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
}

/**
 * `functions/github-events.ts` on the table's stream, on a mapping of its own: only the insert of a
 * GitHub delivery the receiver stored reaches it (filtered by Lambda, lib/db/core/table.ts). It
 * links the issues a delivery names and moves their status; a delivery it fails on is reported
 * (partial batch failures) and retried, the batch split around it, and after its retries its stream
 * position goes to the stream consumers' failure queue (the cascade's), whose alarm any message
 * raises. It opens no webhook secret: no KMS.
 */
export class GitHubEvents extends Construct {
  readonly fn: ServiceFunction;
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: GitHubEventsProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      entry: githubEventsEntry,
      description:
        'Links issues to the pull requests, branches and commits GitHub reports, and moves their status (table stream)',
      environment: { ...props.environment, TABLE_NAME: props.table.table.tableName },
      // A batch is up to 100 deliveries, each a few reads and link writes (a push names up to 20 commits).
      timeout: Duration.minutes(1),
      logs: props.logs,
    });
    props.table.grant(this.fn, githubEventsGrant);
    this.failures = consumeStream(this, this.fn, props.table, {
      filters: githubEventStreamFilters,
      retryAttempts: 5,
      what: 'GitHub deliveries',
      failures: props.failures,
    });
  }
}

import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

/**
 * Feeds `fn` from the table's stream, as both stream consumers are fed: batches of up to 100
 * records within a second, only the records `filters` let through (the same patterns the local
 * stream poller applies, lib/db/core/table.ts), partial batch failures reported and the batch split
 * around a failing record, `retryAttempts` retries, records older than a day dropped, and a
 * record given up on sent to a failure queue (`Failures` in `scope`, kept 14 days, or the
 * `failures` queue given, shared with another consumer), which it returns; `parallelizationFactor`
 * batches of a shard at once (default 1: the shard in order). The cdk-nag findings this brings are
 * acknowledged with their reasons.
 */
export function consumeStream(
  scope: Construct,
  fn: ServiceFunction,
  table: ServiceTable,
  options: { filters: readonly object[]; retryAttempts: number; what: string; parallelizationFactor?: number; failures?: Queue },
): Queue {
  const failures = options.failures ?? failureQueue(scope, options.what);
  fn.addEventSource(
    new DynamoEventSource(table.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      parallelizationFactor: options.parallelizationFactor ?? 1,
      retryAttempts: options.retryAttempts,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      maxRecordAge: Duration.days(1),
      onFailure: new SqsDlq(failures),
      filters: options.filters.map((pattern) => FilterCriteria.filter(structuredClone(pattern) as Record<string, unknown>)),
    }),
  );
  Validations.of(fn.role!).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'dynamodb:ListStreams, added by the event source mapping, supports no resource ARN (only "*")',
  });
  return failures;
}

/** A queue for the stream records a consumer gave up on, kept 14 days. */
function failureQueue(scope: Construct, what: string): Queue {
  const failures = new Queue(scope, 'Failures', {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  Validations.of(failures).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter destination of the ${what}'s event source mapping`,
  });
  return failures;
}

import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { logger } from '../lib/http/logger.ts';
import { publishMetrics } from '../lib/http/metrics.ts';
import { answerCloudFormation, isCustomResourceRequest } from '../lib/migrations/cloudformation.ts';
import type { RunOutcome } from '../lib/migrations/runner.ts';

/** Time kept in reserve before the Lambda timeout (at most half of it): no new step starts after that. */
const RESERVE_MS = 60_000;

/** An invocation of its own (a continuation, or an operator's); CloudFormation's requests are told apart. */
export interface MigrateEvent {
  /** How many times this run has continued itself so far. */
  continued?: number;
}

/**
 * Runs the pending data migrations (lib/migrations/runner.ts) until its deadline and, when the run
 * is unfinished, invokes itself again asynchronously to continue from the recorded cursors, as the
 * cascades continue themselves. On deploy, CloudFormation invokes it as the stack's custom resource
 * (infra/constructs/migrations.ts): it answers at once, so the deploy does not wait, then runs.
 */
async function migrate(event: unknown, context?: Context): Promise<RunOutcome | undefined> {
  if (isCustomResourceRequest(event)) {
    // A retried invocation answers again: CloudFormation keeps the first answer, the run goes on.
    await answerCloudFormation(event).catch((err: Error) => logger.error('could not answer CloudFormation', err));
    if (event.RequestType === 'Delete') return undefined;
  }
  const continued = isCustomResourceRequest(event) ? 0 : ((event as MigrateEvent | undefined)?.continued ?? 0);
  const remaining = context?.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? undefined : Date.now() + remaining - Math.min(RESERVE_MS, remaining / 2);
  // The runner and the data layer load on the first run, not at init: no caller waits on this function.
  const { runMigrations } = await import('../lib/migrations/runner.ts');
  const outcome = await runMigrations({
    ...(context?.awsRequestId ? { owner: context.awsRequestId } : {}),
    ...(deadline === undefined ? {} : { deadline }),
  });
  logger.info('migrations run', { state: outcome.state, ran: outcome.ran, failed: outcome.failed, continued });
  publishMetrics();
  if (outcome.state === 'unfinished' && context?.invokedFunctionArn) {
    // Its signer loads only then: most runs end with nothing pending.
    const { invokeAsync } = await import('../lib/migrations/continue.ts');
    await invokeAsync(context.invokedFunctionArn, { continued: continued + 1 });
  }
  return outcome;
}

/** Every log line carries the Lambda context (request id, cold start...), as on the routes. */
// The run keeps its own deadline (RESERVE_MS): middy's early timeout would abort a step.
export const handler = middy(migrate, { timeoutEarlyInMillis: 0 }).use(injectLambdaContext(logger, { resetKeys: true }));

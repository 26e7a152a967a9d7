import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../lib/http/logger.ts';

/** Time kept in reserve to answer before the Lambda timeout (at most half of it): no new run starts after that. */
const RESERVE_MS = 10_000;

/**
 * DynamoDB Streams consumer of import jobs queued to run (lib/services/import-export/jobs.ts), on a mapping of its
 * own (a long import never delays a cascade, and the cascade's bundle carries none of the import
 * code). Each job runs until done or the deadline, then is written `queued` again with its
 * progress: that write brings the consumer back. A job's failure is written on the job and never
 * fails the batch, so the function reports no batch failure; the import code loads on the first
 * batch, not at init.
 */
async function importJobs(event: DynamoDBStreamEvent, context?: Context): Promise<void> {
  const remaining = context?.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? undefined : Date.now() + remaining - Math.min(RESERVE_MS, remaining / 2);
  const jobs = await import('../lib/services/import-export/job-runner.ts');
  // What a job run does not answer (an internal error's text) is logged here.
  jobs.useJobLog((message, details) => logger.error(message, details));
  for (const { orgId, jobId } of jobs.importJobsOf(event.Records)) {
    try {
      const status = await jobs.runImportJob(orgId, jobId, deadline);
      if (status) logger.info('import job run', { orgId, jobId, status });
    } catch (err) {
      logger.error('import job run failed', { orgId, jobId, error: (err as Error).message });
    }
  }
}

// No early timeout of middy's: the runner stops at its own deadline, a reserve before the Lambda's.
export const handler = middy(importJobs, { timeoutEarlyInMillis: 0 }).use(injectLambdaContext(logger, { resetKeys: true }));

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getImportJob } from '../../lib/db/imports/import-jobs.ts';
import { saveImportJob } from '../../lib/jobs/import-jobs.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { fitted, JOB_REPORT_BYTES, runClaimedJob, TRANSIENT_RETRIES } from '../../lib/services/import-export/job-runner.ts';
import { getImportJobStatus } from '../../lib/services/import-export/jobs.ts';
import { injectFault } from '../support/faults.ts';
import { storeImportJob } from '../support/import-job.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * How a job ends when a run fails: a failure that would happen again (the file, a bug) fails the
 * job at once, in the service's own words; a transient one (the table busy) runs it again, a few
 * times at most. The runs are called here as the consumer calls them, on DynamoDB Local.
 */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');

async function queuedJob(text: string, format: 'jira-csv' | 'github-json' = 'jira-csv') {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Import', prefix: randomPrefix() });
  const id = await storeImportJob(text, { orgId: org.orgId, accountId: org.admin.id, projectId: project.id }, { format });
  const run = async () => runClaimedJob((await getImportJob(org.orgId, id))!);
  return { caller, id, orgId: org.orgId, run };
}

describe('a failed import job', () => {
  it("says why in the service's words: an internal error's text (DynamoDB's, naming an expression) is logged, never answered", async () => {
    const { caller, id, run } = await queuedJob(fixture('github.json'), 'github-json');
    // The job's last write refused as DynamoDB refuses an expression it cannot take.
    const fault = injectFault({
      commands: ['UpdateItemCommand'],
      fault: 'Unknown',
      when: (input) => JSON.stringify(input).includes('"succeeded"'),
    });
    try {
      expect(await run()).toBe('failed');
    } finally {
      fault.remove();
    }
    const job = await getImportJobStatus(caller, id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^The import failed: an internal error stopped it \(logged with the job id\)/);
    expect(job.error).not.toMatch(/Injected|fault|:report|Update|Expression/);
  });

  it('fails at once, never run again, when the failure would come back (the file cannot be read)', async () => {
    const { orgId, id, run } = await queuedJob('Title,Key\nA,B\n');
    expect(await run()).toBe('failed');
    const job = (await getImportJob(orgId, id))!;
    expect(job).toMatchObject({ status: 'failed', error: 'the CSV header has no Summary, Issue key, Status column', runs: 0 });
    // The refusal is the file's: no count of runs again is carried.
    expect((job.carried as { retries?: number } | null)?.retries).toBeUndefined();
  });

  it('runs again after a transient failure (the table busy): the job is queued again, and the next run finishes it', async () => {
    const { caller, orgId, id, run } = await queuedJob(fixture('jira.csv'));
    const fault = injectFault({ commands: ['TransactWriteItemsCommand'], fault: 'ProvisionedThroughputExceeded' });
    try {
      expect(await run()).toBe('queued');
    } finally {
      fault.remove();
    }
    expect(((await getImportJob(orgId, id))!.carried as { retries: number }).retries).toBe(1);
    // Written queued, the job brings the stream's consumer back, which runs it to the end.
    const done = await eventually(
      'the job run again to finish',
      () => getImportJobStatus(caller, id),
      (j) => j.status !== 'queued' && j.status !== 'running',
      bounds.job(1000),
    );
    expect(done).toMatchObject({ status: 'succeeded', error: null });
  }, 90_000);

  it(`fails saying so once the table stayed busy through ${TRANSIENT_RETRIES} runs again`, async () => {
    const { caller, orgId, id, run } = await queuedJob(fixture('jira.csv'));
    const carried = { created: 0, comments: 0, created_sprints: [], created_labels: [], retries: TRANSIENT_RETRIES };
    await saveImportJob(orgId, id, { status: 'running', progress: { rows: 0, created: 0, rejected: 0 }, carried });
    const fault = injectFault({ commands: ['TransactWriteItemsCommand'], fault: 'ProvisionedThroughputExceeded' });
    try {
      expect(await run()).toBe('failed');
    } finally {
      fault.remove();
    }
    const job = await getImportJobStatus(caller, id);
    expect(job.error).toBe(
      `The import failed: the table stayed busy through ${TRANSIENT_RETRIES + 1} runs. What it created is in the report; run it again to go on.`,
    );
  }, 60_000);

  it('keeps a report of rows with thousands of warnings within what the job item holds', () => {
    const warnings = Array.from({ length: 100 }, (_, row) => ({
      row,
      key: `DI-${row}`,
      warnings: Array.from({ length: 500 }, (_, n) => `Labels "${'x'.repeat(60)}${n}" left out`),
    }));
    const keys = Object.fromEntries(Array.from({ length: 5000 }, (_, n) => [`DI-${n}`, `APL-${n}`]));
    const report = { created: 100, warnings, keys };
    const kept = fitted(report);
    const { keys: kept_keys, ...slim } = kept;
    expect(JSON.stringify(slim).length).toBeLessThanOrEqual(JOB_REPORT_BYTES);
    expect(kept.created).toBe(100);
    expect(kept_keys).toEqual(keys);
    expect(kept.warnings.length).toBeGreaterThan(0);
  });
});

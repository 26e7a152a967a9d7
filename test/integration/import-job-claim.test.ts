import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getImportJob } from '../../lib/db/imports/import-jobs.ts';
import { claimImportJob } from '../../lib/jobs/import-jobs.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { runImportJob } from '../../lib/services/import-export/job-runner.ts';
import { getImportJobStatus } from '../../lib/services/import-export/jobs.ts';
import { injectFault } from '../support/faults.ts';
import { storeImportJob } from '../support/import-job.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * A job's claim, as the consumer makes it, when the table applies it and its answer is lost: the
 * SDK sends it again, the table refuses it (the job is `running` now), and the run must know the
 * claim for its own, or nobody runs the job and it stays `running` for ever. On a table of this
 * file's own (vitest.config.ts): a queued job here is not taken by the run's stream consumer.
 */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');

async function queuedJob() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Import', prefix: randomPrefix() });
  const id = await storeImportJob(
    fixture('github.json'),
    { orgId: org.orgId, accountId: org.admin.id, projectId: project.id },
    { format: 'github-json', status: 'queued' },
  );
  return { caller, orgId: org.orgId, id };
}

/** The claim's UpdateItem on job `id`, applied once and its answer lost (the SDK retries it). */
const claimAnswerLost = (id: string) =>
  injectFault({
    commands: ['UpdateItemCommand'],
    fault: 'ConnectionReset',
    applied: true,
    times: 1,
    when: (input) => JSON.stringify(input).includes(id) && JSON.stringify(input).includes('run_claim'),
  });

describe("an import job's claim", () => {
  it('applied by the table and its answer lost is known for its own: the run goes on and finishes the job', async () => {
    const { caller, orgId, id } = await queuedJob();
    const lost = claimAnswerLost(id);
    try {
      expect(await runImportJob(orgId, id)).toBe('succeeded');
      // The first attempt was applied, its answer lost, and the SDK sent it again (refused).
      expect([lost.hits, lost.seen]).toEqual([1, 2]);
    } finally {
      lost.remove();
    }
    expect(await getImportJobStatus(caller, id)).toMatchObject({
      status: 'succeeded',
      progress: { rows: 6, rejected: 2, created: 4 },
    });
  });

  it("is still refused when the job is someone else's: a second claim of the same run takes nothing", async () => {
    const { orgId, id } = await queuedJob();
    expect(await claimImportJob(orgId, id, 0)).toBe(true);
    expect(await claimImportJob(orgId, id, 0)).toBe(false);
    expect((await getImportJob(orgId, id))?.status).toBe('running');
  });
});

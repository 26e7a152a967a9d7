import type { DynamoDBRecord } from 'aws-lambda';
import { claimImportJob, getImportJob, importJobFile, importJobPartCount, saveImportJob } from '../db/import-jobs.ts';
import { ValidationError } from '../domain/errors.ts';
import type { ImportJob } from '../schemas/imports.ts';
import type { ImportReport } from './import.ts';

/**
 * The running of import jobs (lib/port/jobs.ts), by the stream consumer (functions/cascade.ts):
 * apart from the upload route's module, whose bundle then carries none of the import code.
 */

/** Entries each list of a job's report keeps (the job item stays far below 400 KB). */
export const JOB_REPORT_CAP = 100;

/** The queued jobs a batch of stream records asks to run. */
export function importJobsOf(records: DynamoDBRecord[]): { orgId: number; jobId: string }[] {
  const jobs = new Map<string, { orgId: number; jobId: string }>();
  for (const r of records) {
    const image = r.dynamodb?.NewImage;
    if (image?.type?.S !== 'import_job' || image.status?.S !== 'queued') continue;
    const orgId = Number(image.org_id?.N);
    const jobId = String(image.id?.S);
    jobs.set(`${orgId}/${jobId}`, { orgId, jobId });
  }
  return [...jobs.values()];
}

/** What earlier runs of a job made, carried to the next (each run reads the whole file again). */
interface Carried {
  created: number;
  created_sprints: string[];
  created_labels: string[];
}

/**
 * One run of a job: the whole file again (rows imported by an earlier run are skipped as imported,
 * without a write), until done or `deadline`. Returns the job's status after the run.
 */
export async function runImportJob(orgId: number, jobId: string, deadline?: number): Promise<ImportJob['status'] | undefined> {
  const job = await getImportJob(orgId, jobId);
  if (!job || job.status !== 'queued') return undefined;
  // The upload's batch may land the job before its last parts: wait for them (a few reads at most).
  for (let wait = 0; (await importJobPartCount(orgId, jobId)) < job.parts; wait++) {
    if (wait >= 20) {
      await saveImportJob(orgId, jobId, {
        status: 'failed',
        progress: job.progress,
        error: 'the uploaded file is incomplete: upload it again',
      });
      return 'failed';
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!(await claimImportJob(orgId, jobId, Number(job.runs ?? 0)))) return undefined;
  const carried = ((job as unknown as { carried?: Carried | null }).carried ?? {
    created: 0,
    created_sprints: [],
    created_labels: [],
  }) as Carried;
  // The import (the issue write path and all it brings) loads only when a job runs: the upload route
  // (functions/imports.ts) shares this module and stays light.
  const { importIssues, ImportInterrupted } = await import('./import.ts');
  let report: ImportReport | undefined;
  const progress = (r: ImportReport) => ({ rows: r.rows, created: carried.created + r.created, rejected: r.rejected });
  try {
    report = await importIssues(
      {
        orgId,
        projectId: job.project_id,
        format: job.format,
        dryRun: job.dry_run,
        actorId: job.account_id,
        reportCap: JOB_REPORT_CAP,
        deadline,
        progressEvery: 500,
        onProgress: async (r) => {
          report = r;
          await saveImportJob(orgId, jobId, { status: 'running', progress: progress(r), carried });
        },
      },
      importJobFile(orgId, jobId),
    );
    // Rows an earlier run created count as created, not as imported before.
    const merged = {
      ...report,
      created: carried.created + report.created,
      already_imported: report.already_imported - carried.created,
      created_sprints: [...carried.created_sprints, ...report.created_sprints],
      created_labels: [...carried.created_labels, ...report.created_labels],
    };
    await saveImportJob(orgId, jobId, { status: 'succeeded', progress: progress(report), report: merged });
    return 'succeeded';
  } catch (err) {
    if (err instanceof ImportInterrupted) {
      report = err.report;
      const next: Carried = {
        created: carried.created + report.created,
        created_sprints: [...carried.created_sprints, ...report.created_sprints],
        created_labels: [...carried.created_labels, ...report.created_labels],
      };
      await saveImportJob(orgId, jobId, { status: 'queued', progress: progress(report), carried: next });
      return 'queued';
    }
    const message = err instanceof ValidationError ? err.errors.join('; ') : (err as Error).message;
    await saveImportJob(orgId, jobId, {
      status: 'failed',
      progress: report ? progress(report) : job.progress,
      error: message,
    });
    return 'failed';
  }
}

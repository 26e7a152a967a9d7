import type { DynamoDBRecord } from 'aws-lambda';
import {
  claimImportJob,
  fileParts,
  getImportJob,
  importJobFile,
  importJobPartCount,
  insertImportJob,
  saveImportJob,
  toImportJob,
} from '../db/import-jobs.ts';
import { getProjectItem } from '../db/projects.ts';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ImportJob, ImportJobQuery } from '../schemas/imports.ts';
import type { ImportReport } from './import.ts';

/**
 * Import jobs: `POST /imports` stores the uploaded file and a `queued` job; the stream consumer
 * (functions/cascade.ts) runs it in the background up to its deadline, writes the job `queued` again
 * with its progress when it runs out of time (which brings the consumer back), and `succeeded` or
 * `failed` at the end; `GET /imports/{job_id}` shows it. Admins only.
 */

/** Lambda's synchronous payload limit (6 MB) is below API Gateway's (10 MB): the largest upload. */
export const MAX_UPLOAD_BYTES = 6 * 1024 * 1024 - 64 * 1024;
/** Entries each list of a job's report keeps (the job item stays far below 400 KB). */
export const JOB_REPORT_CAP = 100;

const mediaTypes = { 'jira-csv': /^text\/csv\s*(;|$)/i, 'github-json': /^application\/json\s*(;|$)/i } as const;

const adminOnly = (caller: Principal) => {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may import');
};

/** Stores an uploaded file and queues its import; 404 for a project not in the organisation. */
export async function startImportJob(
  caller: Principal,
  query: ImportJobQuery,
  file: { text: string; contentType: string },
): Promise<ImportJob> {
  adminOnly(caller);
  if (!mediaTypes[query.format].test(file.contentType)) {
    throw new BadRequestError(
      415,
      `Content-Type must be ${query.format === 'jira-csv' ? 'text/csv' : 'application/json'} for format ${query.format}`,
    );
  }
  const bytes = Buffer.byteLength(file.text, 'utf8');
  if (bytes > MAX_UPLOAD_BYTES)
    throw new BadRequestError(413, 'The file is larger than 6 MB: import it with the admin CLI (docs/import-export.md)');
  if (file.text.trim() === '') throw new ValidationError(['the file is empty']);
  const projectId = Number(query.project_id);
  if (!(await getProjectItem(caller.orgId, projectId))) throw new NotFoundError('Project');
  const now = new Date().toISOString();
  const job = {
    // The Web Crypto global: no module to load at the function's start.
    id: globalThis.crypto.randomUUID(),
    status: 'queued' as const,
    format: query.format,
    project_id: projectId,
    dry_run: query.dry_run === 'true',
    bytes,
    progress: { rows: 0, created: 0, rejected: 0 },
    report: null,
    error: null,
    created_at: now,
    updated_at: now,
  };
  const parts = fileParts(file.text);
  await insertImportJob({ ...job, org_id: caller.orgId, account_id: caller.accountId, parts: parts.length }, parts);
  return job;
}

/** A job of the organisation; 404 otherwise. */
export async function getImportJobStatus(caller: Principal, jobId: string): Promise<ImportJob> {
  adminOnly(caller);
  const item = /^[0-9a-f-]{36}$/.test(jobId) ? await getImportJob(caller.orgId, jobId) : undefined;
  if (!item) throw new NotFoundError('Import job');
  return toImportJob(item as unknown as Record<string, unknown>);
}

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

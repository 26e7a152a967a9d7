import type { DynamoDBRecord } from 'aws-lambda';
import { itemOfImage, orgOfItem } from '../../db/core/stream-images.ts';
import { getImportJob, importJobPartCount, type ImportJobItem } from '../../db/imports/import-jobs.ts';
import { claimImportJob, importJobFile, saveImportJob } from '../../jobs/import-jobs.ts';
import { DomainError, UnavailableError, ValidationError } from '../../vocabulary/errors.ts';
import { isRetryableDbError } from '../../db/core/errors.ts';
import type { ImportJob } from '../../schemas/imports.ts';
import { reportTotals, type ExportImportReport, type ImportReport } from '../../model/formats/import-plans.ts';

/**
 * The running of import jobs (lib/services/import-export/jobs.ts), by the stream consumer (functions/cascade.ts):
 * apart from the upload route's module, whose bundle then carries none of the import code.
 */

/** Entries each list of a job's report keeps (the job item stays far below 400 KB). */
export const JOB_REPORT_CAP = 100;

/** The queued jobs a batch of stream records asks to run. */
export function importJobsOf(records: DynamoDBRecord[]): { orgId: number; jobId: string }[] {
  const jobs = new Map<string, { orgId: number; jobId: string }>();
  for (const r of records) {
    const image = r.dynamodb?.NewImage && itemOfImage(r.dynamodb.NewImage);
    if (image?.type !== 'import_job' || image.status !== 'queued') continue;
    const orgId = orgOfItem(image);
    const jobId = image.id;
    if (orgId === undefined || typeof jobId !== 'string') continue;
    jobs.set(`${orgId}/${jobId}`, { orgId, jobId });
  }
  return [...jobs.values()];
}

/** What earlier runs of a job made, carried to the next (each run reads the whole file again). */
interface Carried {
  created: number;
  comments: number;
  created_sprints: string[];
  created_labels: string[];
  /** A Jira file's custom fields made by earlier runs. */
  created_fields?: NonNullable<ImportReport['created_fields']>;
  /** An export file's: what earlier runs restored beside the issues. */
  accounts_created?: string[];
  relations?: number;
  activity?: number;
  /** Runs again after a transient failure so far (`TRANSIENT_RETRIES` at most). */
  retries?: number;
}

const nothingCarried = (): Carried => ({ created: 0, comments: 0, created_sprints: [], created_labels: [] });

type AnyReport = ImportReport | ExportImportReport;

/** What this run and the earlier ones made, together. */
function carriedOn(carried: Carried, r: AnyReport): Carried {
  if ('projects' in r) {
    return {
      ...carried,
      created: carried.created + reportTotals(r).created,
      comments: carried.comments + r.comments,
      accounts_created: [...(carried.accounts_created ?? []), ...r.accounts_created],
      relations: (carried.relations ?? 0) + r.relations,
      activity: (carried.activity ?? 0) + r.activity,
    };
  }
  return {
    created: carried.created + r.created,
    comments: carried.comments + r.comments,
    created_sprints: [...carried.created_sprints, ...r.created_sprints],
    created_labels: [...carried.created_labels, ...r.created_labels],
    created_fields: [...(carried.created_fields ?? []), ...(r.created_fields ?? [])],
  };
}

/**
 * The report of the whole job: this run's, with what earlier runs created counted as created (a
 * run reports those rows as the job's own, from the `run` on their records, not as imported
 * before). The maps (keys, ids) are whole in the last run's.
 */
function merged(carried: Carried, r: AnyReport): AnyReport {
  const {
    created,
    comments,
    created_sprints,
    created_labels,
    created_fields = [],
    accounts_created = [],
    ...sums
  } = carriedOn(carried, r);
  if (!('projects' in r))
    return { ...r, created, comments, created_sprints, created_labels, ...(created_fields.length > 0 ? { created_fields } : {}) };
  return { ...r, accounts_created, comments, relations: sums.relations ?? 0, activity: sums.activity ?? 0 };
}

/**
 * One run of a job: the whole file again (rows imported by an earlier run are skipped as imported,
 * without a write), until done or `deadline`. The file is checked whole before the run writes
 * anything: a file that cannot be read fails the job having created nothing; a run that fails
 * part-way saves the report of what it created. Returns the job's status after the run.
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
  return runClaimedJob(job, deadline);
}

/** The run of a job this run has claimed (`runImportJob`); the job's status after it. */
export async function runClaimedJob(job: ImportJobItem, deadline?: number): Promise<ImportJob['status']> {
  const orgId = job.orgId;
  const jobId = job.id;
  const carried = (job as unknown as { carried?: Carried | null }).carried ?? nothingCarried();
  // The import (the issue write path and all it brings) loads only when a job runs: the upload route
  // (functions/imports.ts) shares this module and stays light.
  const { ImportInterrupted, ImportFailed } = await import('./import.ts');
  const progress = (r: AnyReport) => {
    const totals = reportTotals(r);
    return {
      rows: totals.rows,
      created: carried.created + totals.created,
      ...(job.dry_run ? { would_create: totals.wouldCreate } : {}),
      rejected: totals.rejected,
    };
  };
  try {
    const report = await importOf(job, deadline, async (r) => {
      await saveImportJob(orgId, jobId, { status: 'running', progress: progress(r), carried });
    });
    await saveImportJob(orgId, jobId, {
      status: 'succeeded',
      progress: progress(report),
      report: fitted(merged(carried, report)),
    });
    return 'succeeded';
  } catch (err) {
    // Failed part-way: the report says what this run and the earlier ones created.
    const report = err instanceof ImportInterrupted || err instanceof ImportFailed ? (err.report as AnyReport) : undefined;
    if (err instanceof ImportInterrupted) return requeue(job, carried, report, progress);
    return failedRun(job, carried, err instanceof ImportFailed ? err.cause : err, report, progress);
  }
}

/** The import a job runs, by its file's format, until done or its deadline: its report. */
async function importOf(
  job: ImportJobItem,
  deadline: number | undefined,
  onProgress: (r: AnyReport) => Promise<void>,
): Promise<AnyReport> {
  const { orgId, id: jobId } = job;
  const file = () => importJobFile(orgId, jobId);
  if (job.format === 'export') {
    const { importExport } = await import('./import-export.ts');
    return importExport(
      { orgId, dryRun: job.dry_run, actorId: job.accountId, deadline, reportCap: JOB_REPORT_CAP, run: jobId },
      file,
    );
  }
  const { importIssues } = await import('./import.ts');
  return importIssues(
    {
      orgId,
      projectId: Number(job.project_id),
      format: job.format,
      dryRun: job.dry_run,
      keepNumbers: job.keep_numbers,
      mapping: job.mapping ?? undefined,
      actorId: job.accountId,
      reportCap: JOB_REPORT_CAP,
      deadline,
      run: jobId,
      progressEvery: 500,
      onProgress,
    },
    file,
  );
}

/** A run that failed on `cause`: run again after a transient failure (a few times), else the job failed, in its own words. */
async function failedRun(
  job: ImportJobItem,
  carried: Carried,
  cause: unknown,
  report: AnyReport | undefined,
  progress: (r: AnyReport) => ImportJob['progress'],
): Promise<ImportJob['status']> {
  const { orgId, id: jobId } = job;
  const retries = carried.retries ?? 0;
  if (isTransient(cause) && retries < TRANSIENT_RETRIES) {
    log('import job run: a transient failure, run again', { orgId, jobId, error: internalText(cause), retries });
    await sleep(Math.min(5000, 500 * 2 ** retries));
    return requeue(job, { ...carried, retries: retries + 1 }, report, progress);
  }
  const error = ownWords(cause, isTransient(cause));
  if (error.internal) log('import job failed on an internal error', { orgId, jobId, error: internalText(cause) });
  await saveImportJob(orgId, jobId, {
    status: 'failed',
    progress: report ? progress(report) : job.progress,
    ...(report ? { report: fitted(merged(carried, report)) } : {}),
    error: error.message,
  });
  return 'failed';
}

/** The JSON of the report a job item keeps (without its maps, stored in parts), at most: the item stays under 400 KB. */
export const JOB_REPORT_BYTES = 250_000;

/**
 * The report as the job keeps it: its lists (warnings, rejected rows, links…) cut shorter and its
 * long texts clipped until it fits `JOB_REPORT_BYTES`; counts and maps stay whole. A report of a
 * file whose rows each carry thousands of warnings would otherwise be refused by the table.
 */
export function fitted<R extends object>(report: R, bytes = JOB_REPORT_BYTES): R {
  let fit: unknown = report;
  for (let entries = JOB_REPORT_CAP; JSON.stringify(slimOf(fit)).length > bytes && entries > 0;) {
    entries = Math.floor(entries / 2);
    fit = cut(report, entries);
  }
  return fit as R;
}

/** The maps of a report, stored in parts beside the job (lib/db/imports/import-jobs.ts): not cut, not counted. */
const mapNames = new Set(['keys', 'ids', 'issues']);
const slimOf = (r: unknown): unknown =>
  r && typeof r === 'object' && !Array.isArray(r)
    ? Object.fromEntries(Object.entries(r).flatMap(([k, v]) => (mapNames.has(k) ? [] : [[k, slimOf(v)]])))
    : r;

/** Every list cut to `entries` and every text to 200 characters, but the maps (`keys`, `ids`). */
function cut(value: unknown, entries: number): unknown {
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 197)}...` : value;
  if (Array.isArray(value)) return value.slice(0, entries).map((v) => cut(v, entries));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapNames.has(k) ? v : cut(v, entries)]));
  return value;
}

/** Times a job is run again after a transient failure (the table busy, a connection lost), each after a pause. */
export const TRANSIENT_RETRIES = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes the job `queued` again with what this run made: that write brings the consumer back, and the next run goes on. */
async function requeue(
  job: ImportJobItem,
  carried: Carried,
  report: AnyReport | undefined,
  progress: (r: AnyReport) => ImportJob['progress'],
): Promise<'queued'> {
  await saveImportJob(job.orgId, job.id, {
    status: 'queued',
    progress: report ? progress(report) : job.progress,
    carried: report ? { ...carriedOn(carried, report), retries: carried.retries } : carried,
  });
  return 'queued';
}

/** Codes of a connection that failed on the way: nothing about the file, worth another run. */
const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** A failure that may not happen again (DynamoDB busy, a connection lost); any other would fail the same way every run. */
export function isTransient(err: unknown): boolean {
  if (isRetryableDbError(err) || err instanceof UnavailableError) return true;
  const e = err as { name?: string; code?: string } | undefined;
  return e?.name === 'TimeoutError' || (e?.code !== undefined && networkCodes.has(e.code));
}

/**
 * A failed job's `error`, in the service's words: the reasons of a refusal of the file or of a
 * record (a validation, a project gone); for anything else a sentence of ours, the internal text
 * being logged, never answered (it may name the table's expressions and attributes).
 */
export function ownWords(err: unknown, transient = false): { message: string; internal: boolean } {
  if (err instanceof ValidationError) return { message: err.errors.join('; '), internal: false };
  if (err instanceof DomainError && !(err instanceof UnavailableError)) return { message: err.message, internal: false };
  const what = transient
    ? `the table stayed busy through ${TRANSIENT_RETRIES + 1} runs`
    : 'an internal error stopped it (logged with the job id)';
  return { message: `The import failed: ${what}. What it created is in the report; run it again to go on.`, internal: true };
}

const internalText = (err: unknown) =>
  err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : JSON.stringify(err);

/** Where a job run logs what it does not answer (the consumer passes its logger). */
type JobLog = (message: string, details: Record<string, unknown>) => void;
let log: JobLog = (message, details) => console.error(message, JSON.stringify(details));

/** The consumer's logger for what a job run does not answer. */
export function useJobLog(logger: JobLog): void {
  log = logger;
}

import { randomUUID } from 'node:crypto';
import type { ImportJob } from '../schemas/imports.ts';
import { fileParts, splitReport, type Report } from '../model/import-files.ts';
import {
  importJobClaim,
  importJobFilePage,
  newImportJobItems,
  putBatch,
  reportPartItems,
  setImportJobState,
  takeImportJob,
  type ImportJobItem,
} from '../db/imports/import-jobs.ts';

/**
 * The steps of an import job's writes, in their order: its upload, its claim by a run, its file read
 * part after part, and where a run left it. Each read and write is in lib/db/imports/import-jobs.ts.
 */

/**
 * Writes a new job and its file's parts in one BatchWrite (at most 25 items: 6 MB of parts and the
 * job). The writes of a batch are not ordered: a run that finds fewer parts than the job counts
 * waits for them (`importJobPartCount`).
 */
export async function insertImportJob(
  job: ImportJob & Pick<ImportJobItem, 'orgId' | 'accountId' | 'parts'>,
  parts: string[],
): Promise<void> {
  if (parts.length > 24) throw new Error(`an import file of ${parts.length} parts does not fit one batch`);
  await putAll(newImportJobItems(job, parts), 'import upload');
}

/**
 * Takes a queued job for one run (`runs` as read: two consumers never run it at once). False:
 * someone else has it. The claim carries a token of its own: a claim the table applied but whose
 * answer was lost (a connection reset) is refused when the SDK sends it again, and is then found
 * to be this run's (one consistent read), not someone else's, or the job would stay `running` with
 * nobody running it.
 */
export async function claimImportJob(orgId: number, jobId: string, runs: number): Promise<boolean> {
  const claim = randomUUID();
  if (await takeImportJob(orgId, jobId, runs, claim)) return true;
  return (await importJobClaim(orgId, jobId)) === claim;
}

/** The uploaded file, part after part. */
export async function* importJobFile(orgId: number, jobId: string): AsyncGenerator<string> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await importJobFilePage(orgId, jobId, start);
    start = page.next;
    yield* page.texts;
  } while (start);
}

/**
 * Writes where a run left the job: `queued` again (to go on), `succeeded` or `failed`. A report's
 * maps (every key, every id: they grow with the file) go first, in parts of at most PART_BYTES
 * beside the job (`reportPartItems`); the job keeps the rest and how many parts there are.
 */
export async function saveImportJob(
  orgId: number,
  jobId: string,
  fields: Pick<ImportJob, 'status' | 'progress'> & {
    report?: object | null | undefined;
    error?: string | null;
    carried?: unknown;
  },
): Promise<void> {
  let report: Report | null = null;
  let reportParts = 0;
  if (fields.report) {
    const { slim, maps } = splitReport(fields.report as Report);
    report = slim;
    const parts = fileParts(JSON.stringify(maps));
    reportParts = parts.length;
    await putAll(reportPartItems(orgId, jobId, parts), 'import report');
  }
  await setImportJobState(orgId, jobId, { ...fields, report, reportParts });
}

/** Puts items in BatchWrites of 25, sending again what the table left unprocessed. */
async function putAll(items: Record<string, unknown>[], what: string): Promise<void> {
  for (let from = 0; from < items.length; from += 25) {
    let pending = items.slice(from, from + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      pending = await putBatch(pending);
      if (attempt > 8 && pending.length > 0) throw new Error(`${what}: the table kept refusing the writes`);
    }
  }
}

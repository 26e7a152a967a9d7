import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ImportJob, ImportMapping } from '../../schemas/imports.ts';
import { joinReport, type Report } from '../../model/import-files.ts';
import { db, tableName } from '../core/client.ts';
import { keys, orgPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { getItem, updateIf } from '../core/transactions.ts';
import { alsoIf, attribute, itemKind, type Attribute } from '../core/item.ts';

/**
 * Import jobs (`POST /imports`): the job item in the organisation's partition, and the uploaded
 * file in parts (lib/model/import-files.ts) in a partition of its own (TTL: they go a week after the
 * upload); lib/jobs/import-jobs.ts writes them in order. A job `queued` is work for the stream consumer (lib/db/core/table.ts: its stream filter),
 * which runs it (lib/services/import-export/job-runner.ts), and, out of time, writes it `queued` again with its progress:
 * that write brings the consumer back, as a pending cascade does.
 */

/** How long a job and its parts are kept. */
const KEEP_SECONDS = 7 * 24 * 3600;

/** A value stored whole (a map), null when there is none. */
const whole = <T>(stored: string): Attribute<T | null> => ({
  stored,
  read: (v) => (v === undefined || v === null ? null : (v as T)),
  write: (v) => v,
});

export const importJobItem = itemKind({
  type: 'import_job',
  key: keys.importJob.placement,
  about: 'import job: status, progress, report (TTL)',
  attributes: {
    id: attribute.string('id'),
    orgId: attribute.number('org_id'),
    /** Who uploaded it: the actor of what it writes. */
    accountId: attribute.number('account_id'),
    status: attribute.oneOf<ImportJob['status']>('status'),
    format: attribute.oneOf<ImportJob['format']>('format'),
    projectId: attribute.nullableNumber('project_id'),
    dryRun: { stored: 'dry_run', read: (v: unknown) => Boolean(v), write: (v: boolean) => v },
    keepNumbers: { stored: 'keep_numbers', read: (v: unknown) => Boolean(v), write: (v: boolean) => v },
    mapping: whole<ImportMapping>('mapping'),
    bytes: attribute.counter('bytes'),
    progress: {
      stored: 'progress',
      read: (v: unknown) => (v as ImportJob['progress'] | undefined) ?? { rows: 0, created: 0, rejected: 0 },
      write: (v: ImportJob['progress']) => v,
    },
    /** Its report without the maps that grow with the file (those are in parts beside it: `reportParts`). */
    report: whole<NonNullable<ImportJob['report']>>('report'),
    error: attribute.nullableString('error'),
    /** Parts of its uploaded file. */
    parts: attribute.counter('parts'),
    /** Runs so far (a long import takes several: each ends at the consumer's deadline). */
    runs: attribute.counter('runs'),
    /** Who took the job for its latest run (a token of that run's own): its claim is known as its own. */
    claim: attribute.nullableString('run_claim'),
    /** Parts of the report's maps (`keys`, `ids`) stored beside the job. */
    reportParts: attribute.counter('report_parts'),
    /** What a run carries over to the next (lib/services/import-export/job-runner.ts). */
    carried: whole<unknown>('carried'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
    expiresAt: attribute.expiry(),
  },
});

/** A part's text and when it goes (TTL): a job's file and its report's maps are kept in parts alike. */
const partAttributes = {
  text: attribute.string('text'),
  expiresAt: attribute.expiry(),
};

/** Part n of a job's uploaded file, in a partition of its own: the runs read it part after part (`importJobFilePage`). */
export const importFilePartItem = itemKind({
  type: 'import_part',
  key: keys.importJobPart.placement,
  about: "part n of an import job's file (TTL `expires_at`)",
  attributes: partAttributes,
});

/** Part n of the maps of a job's report (lib/model/import-files.ts), right after the job: one Query reads both. */
export const importReportPartItem = itemKind({
  type: 'import_report_part',
  key: keys.importJobReportPart.placement,
  about: "part n of an import job's report maps (TTL)",
  attributes: partAttributes,
});

/** A job as a run reads it: the resource, with who uploaded it, where, and its run's bookkeeping. */
export interface ImportJobItem extends ImportJob {
  orgId: number;
  accountId: number;
  parts: number;
  runs: number;
  carried: unknown;
}

/** The resource from a stored job. */
export const toImportJob = (item: Record<string, unknown>): ImportJob => {
  const j = importJobItem.decode(item);
  return {
    id: j.id,
    status: j.status,
    format: j.format,
    project_id: j.projectId,
    dry_run: j.dryRun,
    keep_numbers: j.keepNumbers,
    mapping: j.mapping,
    bytes: j.bytes,
    progress: j.progress,
    report: j.report,
    error: j.error,
    created_at: j.createdAt,
    updated_at: j.updatedAt,
  };
};

/** Who uploaded the job a stream image holds (the actor of its events), if the image says. */
export const importJobActor = (image: object): number => importJobItem.field(image, 'accountId');

/** A new job's stored items: its file's parts, then the job (they go a week after the upload). */
export function newImportJobItems(
  job: ImportJob & Pick<ImportJobItem, 'orgId' | 'accountId' | 'parts'>,
  parts: string[],
): Record<string, unknown>[] {
  const expires = Math.floor(Date.now() / 1000) + KEEP_SECONDS;
  const partItems = parts.map((text, n) => ({
    ...keys.importJobPart(job.orgId, job.id, n),
    type: importFilePartItem.type,
    ...importFilePartItem.encode({ text, expiresAt: expires }),
  }));
  const jobItem = {
    ...keys.importJob(job.orgId, job.id),
    type: importJobItem.type,
    ...importJobItem.encode({
      id: job.id,
      status: job.status,
      format: job.format,
      projectId: job.project_id,
      dryRun: job.dry_run,
      keepNumbers: job.keep_numbers,
      mapping: job.mapping,
      bytes: job.bytes,
      progress: job.progress,
      report: job.report,
      error: job.error,
      createdAt: job.created_at,
      updatedAt: job.updated_at,
      orgId: job.orgId,
      accountId: job.accountId,
      parts: job.parts,
      expiresAt: expires,
    }),
  };
  return [...partItems, jobItem];
}

/** The stored parts of a report's maps, beside its job (they go a week after they are written). */
export function reportPartItems(orgId: number, jobId: string, parts: string[]): Record<string, unknown>[] {
  const expires = Math.floor(Date.now() / 1000) + KEEP_SECONDS;
  return parts.map((text, n) => ({
    ...keys.importJobReportPart(orgId, jobId, n),
    type: importReportPartItem.type,
    ...importReportPartItem.encode({ text, expiresAt: expires }),
  }));
}

/** Puts at most 25 items in one BatchWrite; the items the table left unprocessed come back. */
export async function putBatch(items: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const requests = items.map((Item) => ({ PutRequest: { Item } }));
  const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
  return (out.UnprocessedItems?.[tableName()] ?? []).map((r) => r.PutRequest?.Item as Record<string, unknown>);
}

/** The Query of a job's file parts, in their partition. */
const fileQuery = (orgId: number, jobId: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
  ExpressionAttributeValues: { ':pk': `${orgPk(orgId)}#IMPORT#${jobId}`, ':p': 'PART#' },
});

/** How many parts of a job's file are stored (a keys-only count). */
export async function importJobPartCount(orgId: number, jobId: string): Promise<number> {
  let count = 0;
  await queryPages({ ...fileQuery(orgId, jobId), Select: 'COUNT' }, {}, (_items, n) => {
    count += n;
  });
  return count;
}

export async function getImportJob(orgId: number, jobId: string): Promise<ImportJobItem | undefined> {
  const item = await getItem(keys.importJob(orgId, jobId));
  if (!item) return undefined;
  const { orgId: org, accountId, parts, runs, carried } = importJobItem.decode(item);
  return { ...toImportJob(item), orgId: org, accountId, parts, runs, carried };
}

/**
 * A job with its report whole: one consistent Query reads the job and the parts of its report's
 * maps, which sort right after it (one call, as the job alone).
 */
export async function getImportJobWithExtras(orgId: number, jobId: string): Promise<ImportJob | undefined> {
  const items: Record<string, unknown>[] = [];
  const job = keys.importJob(orgId, jobId);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': job.PK, ':sk': job.SK },
    },
    {},
    (page) => {
      items.push(...page);
    },
  );
  const item = items.find((i) => i.SK === job.SK);
  if (!item) return undefined;
  const parts = items.filter((i) => i.type === importReportPartItem.type).map((i) => importReportPartItem.field(i, 'text'));
  const report = importJobItem.field(item, 'report');
  if (report && parts.length > 0 && parts.length === importJobItem.field(item, 'reportParts')) {
    const joined = joinReport(report, JSON.parse(parts.join('')) as Report);
    return toImportJob({ ...item, [importJobItem.stored('report')]: joined });
  }
  return toImportJob(item);
}

/** A page of the uploaded file from `start`: at most 4 parts, and where the next page starts (none: the end). */
export async function importJobFilePage(
  orgId: number,
  jobId: string,
  start: Record<string, unknown> | undefined,
): Promise<{ texts: string[]; next: Record<string, unknown> | undefined }> {
  let texts: string[] = [];
  const next = await queryPages(fileQuery(orgId, jobId), { start, limit: () => 4 }, (items) => {
    texts = items.map((i) => importFilePartItem.field(i, 'text'));
    return false;
  });
  return { texts, next };
}

/**
 * Takes a queued job for a run as `claim` (one conditional UpdateItem), on `runs` as read. False:
 * refused (the job is not queued, or its runs moved meanwhile).
 */
export const takeImportJob = (orgId: number, jobId: string, runs: number, claim: string): Promise<boolean> =>
  updateIf({
    Key: keys.importJob(orgId, jobId),
    ...alsoIf(
      importJobItem.update({
        set: { status: 'running', runs: runs + 1, updatedAt: new Date().toISOString(), claim },
        if: { equals: { status: 'queued' } },
      }),
      {
        ConditionExpression: '(attribute_not_exists(#runsRead) OR #runsRead = :runsRead)',
        ExpressionAttributeNames: { '#runsRead': importJobItem.stored('runs') },
        ExpressionAttributeValues: { ':runsRead': runs },
      },
    ),
  });

/** Who took the job for its latest run (one consistent read of that attribute); undefined: no job. */
export async function importJobClaim(orgId: number, jobId: string): Promise<string | null | undefined> {
  const job = await getItem(keys.importJob(orgId, jobId), importJobItem.stored('claim'));
  return job && importJobItem.field(job, 'claim');
}

/**
 * Writes where a run left the job (one UpdateItem): its status and progress, its report as the job
 * keeps it (without its maps) and how many parts those maps are in.
 */
export async function setImportJobState(
  orgId: number,
  jobId: string,
  fields: Pick<ImportJob, 'status' | 'progress'> & {
    report: Report | null;
    reportParts: number;
    error?: string | null | undefined;
    carried?: unknown;
  },
): Promise<void> {
  await importJobItem.updateNow(keys.importJob(orgId, jobId), {
    set: {
      status: fields.status,
      progress: fields.progress,
      reportParts: fields.reportParts,
      error: fields.error ?? null,
      carried: fields.carried ?? null,
      updatedAt: new Date().toISOString(),
      report: fields.report as NonNullable<ImportJob['report']> | null,
    },
  });
}

import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ImportJob, ImportMapping } from '../../schemas/imports.ts';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { keys, orgPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { getItem } from '../core/transactions.ts';
import { alsoIf, attribute, itemKind, type Attribute } from '../core/item.ts';

/**
 * Import jobs (`POST /imports`): the job item in the organisation's partition, and the uploaded
 * file in parts of at most PART_BYTES in a partition of its own (TTL: they go a week after the
 * upload). A job `queued` is work for the stream consumer (lib/db/core/table.ts: its stream filter),
 * which runs it (lib/services/import-export/job-runner.ts), and, out of time, writes it `queued` again with its progress:
 * that write brings the consumer back, as a pending cascade does.
 */

/** A part's text, in UTF-8 bytes: items stay well inside DynamoDB's 400 KB. */
export const PART_BYTES = 300_000;
const KEEP_SECONDS = 7 * 24 * 3600;

/** Cuts a text into parts of at most PART_BYTES of UTF-8, never inside a character. */
export function fileParts(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PART_BYTES / 3);
    // Grow while it fits (most text is one byte a character), never splitting a surrogate pair.
    while (end < text.length && Buffer.byteLength(text.slice(start, Math.min(text.length, end + 10_000)), 'utf8') <= PART_BYTES) {
      end = Math.min(text.length, end + 10_000);
    }
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

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

/** Part n of a job's uploaded file, in a partition of its own: the runs read it part after part (`importJobFile`). */
export const importFilePartItem = itemKind({
  type: 'import_part',
  key: keys.importJobPart.placement,
  about: "part n of an import job's file (TTL `expires_at`)",
  attributes: partAttributes,
});

/** Part n of the maps of a job's report (`splitReport`), right after the job: one Query reads both. */
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
  let pending = [...partItems, jobItem].map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
    pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    if (attempt > 8 && pending.length > 0) throw new Error('import upload: the table kept refusing the writes');
  }
}

/** How many parts of a job's file are stored (a keys-only count). */
export async function importJobPartCount(orgId: number, jobId: string): Promise<number> {
  let count = 0;
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': `${orgPk(orgId)}#IMPORT#${jobId}`, ':p': 'PART#' },
      Select: 'COUNT',
    },
    {},
    (_items, n) => {
      count += n;
    },
  );
  return count;
}

export async function getImportJob(orgId: number, jobId: string): Promise<ImportJobItem | undefined> {
  const item = await getItem(keys.importJob(orgId, jobId));
  if (!item) return undefined;
  const { orgId: org, accountId, parts, runs, carried } = importJobItem.decode(item);
  return { ...toImportJob(item), orgId: org, accountId, parts, runs, carried };
}

/** The maps of a report that grow with the file (every key, every id): stored in parts beside the job. */
const mapNames = ['keys', 'issues', 'ids'] as const;

type Report = Record<string, unknown>;

/** A report without its maps (the job item keeps it), and the maps (in parts). */
export function splitReport(report: Report): { slim: Report; maps: Report } {
  const take = (r: Report) => {
    const slim: Report = { ...r };
    const maps: Report = {};
    for (const name of mapNames) {
      if (name in slim) {
        maps[name] = slim[name];
        delete slim[name];
      }
    }
    return { slim, maps };
  };
  const top = take(report);
  // An export file's report: each project's report has its maps too.
  if (top.slim.projects && typeof top.slim.projects === 'object') {
    const projects: Report = {};
    const projectMaps: Report = {};
    for (const [prefix, p] of Object.entries(top.slim.projects as Record<string, Report>)) {
      const { slim, maps } = take(p);
      projects[prefix] = slim;
      projectMaps[prefix] = maps;
    }
    top.slim.projects = projects;
    top.maps.projects = projectMaps;
  }
  return top;
}

/** The report with its maps back (`splitReport` undone). */
export function joinReport(slim: Report, maps: Report): Report {
  const { projects: projectMaps, ...own } = maps;
  const joined: Report = { ...slim, ...own };
  if (projectMaps && slim.projects) {
    joined.projects = Object.fromEntries(
      Object.entries(slim.projects as Record<string, Report>).map(([prefix, p]) => [
        prefix,
        { ...p, ...((projectMaps as Record<string, Report>)[prefix] ?? {}) },
      ]),
    );
  }
  return joined;
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

/** The uploaded file, part after part. */
export async function* importJobFile(orgId: number, jobId: string): AsyncGenerator<string> {
  let start: Record<string, unknown> | undefined;
  do {
    let texts: string[] = [];
    start = await queryPages(
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
        ExpressionAttributeValues: { ':pk': `${orgPk(orgId)}#IMPORT#${jobId}`, ':p': 'PART#' },
      },
      { start, limit: () => 4 },
      (items) => {
        texts = items.map((i) => importFilePartItem.field(i, 'text'));
        return false;
      },
    );
    yield* texts;
  } while (start);
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
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
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
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    const job = await getItem(keys.importJob(orgId, jobId), importJobItem.stored('claim'));
    return job !== undefined && importJobItem.field(job, 'claim') === claim;
  }
}

/**
 * Writes where a run left the job: `queued` again (to go on), `succeeded` or `failed`. A report's
 * maps (every key, every id: they grow with the file) go first, in parts of at most PART_BYTES
 * beside the job (`importJobReportPart`); the job keeps the rest and how many parts there are.
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
    const expires = Math.floor(Date.now() / 1000) + KEEP_SECONDS;
    await batchPut(
      parts.map((text, n) => ({
        ...keys.importJobReportPart(orgId, jobId, n),
        type: importReportPartItem.type,
        ...importReportPartItem.encode({ text, expiresAt: expires }),
      })),
    );
  }
  await importJobItem.updateNow(keys.importJob(orgId, jobId), {
    set: {
      status: fields.status,
      progress: fields.progress,
      reportParts,
      error: fields.error ?? null,
      carried: fields.carried ?? null,
      updatedAt: new Date().toISOString(),
      // The report as kept on the job: without its maps (those are in the parts).
      report: report as NonNullable<ImportJob['report']> | null,
    },
  });
}

/** Puts items in BatchWrites of 25, sending again what the table left unprocessed. */
async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  for (let from = 0; from < items.length; from += 25) {
    let pending = items.slice(from, from + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      if (attempt > 8 && pending.length > 0) throw new Error('import report: the table kept refusing the writes');
    }
  }
}

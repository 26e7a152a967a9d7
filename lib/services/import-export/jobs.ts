import { jobIdPattern } from '../../vocabulary/ids.ts';
import { getImportJobWithExtras } from '../../db/imports/import-jobs.ts';
import { insertImportJob } from '../../jobs/import-jobs.ts';
import { fileParts } from '../../model/import-files.ts';
import { getProjectItem } from '../../db/projects/projects.ts';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../vocabulary/errors.ts';
import type { Principal } from '../../model/principal.ts';
import type { ImportJob, ImportJobQuery, ImportMapping, JobFormat } from '../../schemas/imports.ts';
import { checkUpload } from './file-checks.ts';

/**
 * Import jobs: `POST /imports` stores the uploaded file and a `queued` job; the stream consumer
 * (functions/cascade.ts, through lib/services/import-export/job-runner.ts) runs it in the background up to its deadline, writes the job `queued` again
 * with its progress when it runs out of time (which brings the consumer back), and `succeeded` or
 * `failed` at the end; `GET /imports/{job_id}` shows it. Admins only.
 */

/** Lambda's synchronous payload limit (6 MB) is below API Gateway's (10 MB): the largest upload. */
export const MAX_UPLOAD_BYTES = 6 * 1024 * 1024 - 64 * 1024;

/** The media type of each format's file, sent as the body itself; `application/json` also carries any file in an envelope. */
export const fileMediaTypes: Record<JobFormat, string> = {
  'jira-csv': 'text/csv',
  'github-json': 'application/json',
  export: 'application/x-ndjson',
};

const isMediaType = (contentType: string, type: string) =>
  new RegExp(`^${type.replace('/', '\\/')}\\s*(;|$)`, 'i').test(contentType);

const adminOnly = (caller: Principal) => {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may import');
};

/** What an upload holds: the file, and the mapping an envelope sent with it. */
export interface Upload {
  text: string;
  mapping?: ImportMapping | undefined;
}

/**
 * The file of an upload in format `format`: the body itself in the format's media type, or (for
 * any format) an `application/json` object `{"file": …, "mapping": …}` (`readEnvelope` parses and
 * checks it). 415 for any other media type.
 */
export function uploadOf(
  format: JobFormat,
  body: { text: string; contentType: string },
  readEnvelope: (text: string) => Upload,
): Upload {
  const json = isMediaType(body.contentType, 'application/json');
  // An object is an envelope; GitHub's file is an array.
  if (json && body.text.trimStart().startsWith('{')) return readEnvelope(body.text);
  if (isMediaType(body.contentType, fileMediaTypes[format])) return { text: body.text };
  throw new BadRequestError(
    415,
    `Content-Type must be ${fileMediaTypes[format]} for format ${format} (or application/json: {"file": …, "mapping": …})`,
  );
}

/** Stores an uploaded file and queues its import; 404 for a project not in the organisation. */
export async function startImportJob(
  caller: Principal,
  query: ImportJobQuery,
  body: { text: string; contentType: string },
  readEnvelope: (text: string) => Upload,
): Promise<ImportJob> {
  adminOnly(caller);
  const upload = uploadOf(query.format, body, readEnvelope);
  const bytes = Buffer.byteLength(body.text, 'utf8');
  if (bytes > MAX_UPLOAD_BYTES)
    throw new BadRequestError(413, 'The file is larger than 6 MB: import it with the admin CLI (docs/import-export.md)');
  if (upload.text.trim() === '') throw new ValidationError(['the file is empty']);
  const toOrganisation = query.format === 'export';
  if (toOrganisation && query.project_id !== undefined)
    throw new ValidationError(['project_id: an export file is imported into the organisation: leave project_id out']);
  if (!toOrganisation && query.project_id === undefined)
    throw new ValidationError([`project_id is required for format ${query.format}`]);
  const projectId = query.project_id === undefined ? null : Number(query.project_id);
  const project = projectId === null ? undefined : await getProjectItem(caller.orgId, projectId);
  if (projectId !== null && !project) throw new NotFoundError('Project');
  const keepNumbers = toOrganisation || query.keep_numbers === 'true';
  // What the import would refuse before its first write is refused now: 422, and no job.
  await checkUpload(query.format, upload.text, keepNumbers && project ? { prefix: project.prefix } : undefined);
  const now = new Date().toISOString();
  const job = {
    // The Web Crypto global: no module to load at the function's start.
    id: globalThis.crypto.randomUUID(),
    status: 'queued' as const,
    format: query.format,
    project_id: projectId,
    dry_run: query.dry_run === 'true',
    keep_numbers: keepNumbers,
    mapping: upload.mapping ?? null,
    bytes,
    progress: { rows: 0, created: 0, rejected: 0 },
    report: null,
    error: null,
    created_at: now,
    updated_at: now,
  };
  const parts = fileParts(upload.text);
  await insertImportJob({ ...job, orgId: caller.orgId, accountId: caller.accountId, parts: parts.length }, parts);
  return job;
}

/** A job of the organisation, its report whole; 404 otherwise. */
export async function getImportJobStatus(caller: Principal, jobId: string): Promise<ImportJob> {
  adminOnly(caller);
  const job = jobIdPattern.test(jobId) ? await getImportJobWithExtras(caller.orgId, jobId) : undefined;
  if (!job) throw new NotFoundError('Import job');
  return job;
}

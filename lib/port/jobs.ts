import { jobIdPattern } from '../domain/ids.ts';
import { fileParts, getImportJob, insertImportJob, toImportJob } from '../db/import-jobs.ts';
import { getProjectItem } from '../db/projects.ts';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ImportJob, ImportJobQuery } from '../schemas/imports.ts';

/**
 * Import jobs: `POST /imports` stores the uploaded file and a `queued` job; the stream consumer
 * (functions/cascade.ts, through lib/port/job-runner.ts) runs it in the background up to its deadline, writes the job `queued` again
 * with its progress when it runs out of time (which brings the consumer back), and `succeeded` or
 * `failed` at the end; `GET /imports/{job_id}` shows it. Admins only.
 */

/** Lambda's synchronous payload limit (6 MB) is below API Gateway's (10 MB): the largest upload. */
export const MAX_UPLOAD_BYTES = 6 * 1024 * 1024 - 64 * 1024;

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
  const item = jobIdPattern.test(jobId) ? await getImportJob(caller.orgId, jobId) : undefined;
  if (!item) throw new NotFoundError('Import job');
  return toImportJob(item as unknown as Record<string, unknown>);
}

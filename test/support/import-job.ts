import { insertImportJob } from '../../lib/jobs/import-jobs.ts';
import { fileParts } from '../../lib/model/import-files.ts';
import type { ImportJob, ImportMapping } from '../../lib/schemas/imports.ts';

/**
 * Stores an import job of `text` as the upload route stores one (its file in parts beside it), for
 * a test that runs it itself: `running` (as a claimed job is: the run's stream consumer leaves it
 * alone) unless said otherwise. Its id.
 */
export async function storeImportJob(
  text: string,
  at: { orgId: number; accountId: number; projectId: number },
  options: { format?: ImportJob['format']; status?: ImportJob['status']; mapping?: ImportMapping | null } = {},
): Promise<string> {
  const parts = fileParts(text);
  const id = globalThis.crypto.randomUUID();
  const now = new Date().toISOString();
  await insertImportJob(
    {
      id,
      status: options.status ?? 'running',
      format: options.format ?? 'jira-csv',
      project_id: at.projectId,
      dry_run: false,
      keep_numbers: false,
      mapping: options.mapping ?? null,
      bytes: text.length,
      progress: { rows: 0, created: 0, rejected: 0 },
      report: null,
      error: null,
      created_at: now,
      updated_at: now,
      orgId: at.orgId,
      accountId: at.accountId,
      parts: parts.length,
    },
    parts,
  );
  return id;
}

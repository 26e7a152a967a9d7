/**
 * The admin CLI's `import` and `export` (docs/import-export.md): files in and out of an
 * organisation, read and written as streams.
 */
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';

/**
 * `import --org N --format jira-csv|github-json|export --file PATH [--project ID] [--dry-run]
 * [--keep-numbers] [--mapping FILE] [--files DIR]`. The file is read twice (checked whole, then
 * imported; an export file four times), each time as a stream. `--files`: the folder of an
 * export's attachment files (`export --files`), re-uploaded from there.
 */
export async function runImport(values: Record<string, string | undefined>, positiveInt: (v: string, flag: string) => number) {
  const orgId = positiveInt(values.org as string, 'org');
  const format = values.format;
  const dryRun = values['dry-run'] === 'true';
  const path = values.file as string;
  const file = () => createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  if (format === 'export') {
    const { importExport } = await import('../../lib/services/import-export/import-export.ts');
    const { attachmentFolder } = await import('../../lib/services/import-export/attachment-files.ts');
    const files = values.files === undefined ? undefined : attachmentFolder(values.files);
    return importExport({ orgId, dryRun, files }, file);
  }
  if (values.files !== undefined) throw new UsageError('--files goes with --format export');
  if (format !== 'jira-csv' && format !== 'github-json') throw new UsageError('--format must be jira-csv, github-json or export');
  if (values.project === undefined) throw new UsageError(`--project is required for --format ${format}`);
  const mapping = values.mapping === undefined ? undefined : await readMapping(values.mapping);
  const { importIssues } = await import('../../lib/services/import-export/import.ts');
  return importIssues(
    {
      orgId,
      projectId: positiveInt(values.project, 'project'),
      format,
      dryRun,
      keepNumbers: values['keep-numbers'] === 'true',
      mapping,
      onProgress: (r) =>
        void process.stderr.write(
          `admin: import: ${r.rows} rows read, ${r.dry_run ? `${r.would_create ?? 0} would be created` : `${r.created} created`}\n`,
        ),
      progressEvery: 1000,
    },
    file,
  );
}

/** The mapping file: JSON, checked as the REST envelope's `mapping` is (an unknown key is refused). */
async function readMapping(path: string) {
  const { ImportMapping } = await import('../../lib/schemas/imports.ts');
  const { parseOrThrow } = await import('../../lib/schemas/validate.ts');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--mapping ${path} is not a JSON file (${(err as Error).message})`);
  }
  return parseOrThrow(ImportMapping, parsed, false);
}

/**
 * `export --org N [--out FILE] [--files DIR]`: JSON Lines to the file (answering a summary) or to
 * stdout (answering nothing more, unless files were written: the summary then goes to stderr).
 * `--files DIR`: each ready attachment's file too, read from the bucket into DIR, one at a time.
 */
export async function runExport(values: Record<string, string | undefined>, positiveInt: (v: string, flag: string) => number) {
  const { writeExport } = await import('../../lib/services/import-export/attachment-files.ts');
  const out = values.out === undefined ? process.stdout : createWriteStream(values.out);
  const written = await writeExport(
    positiveInt(values.org as string, 'org'),
    out,
    values.files,
    values['include-trash'] === 'true',
  );
  const summary = { ...(values.out === undefined ? {} : { written: values.out }), ...written };
  if (values.out === undefined) {
    if (written.files) process.stderr.write(`admin: export: ${JSON.stringify(summary)}\n`);
    return undefined;
  }
  out.end();
  await once(out, 'finish');
  return summary;
}

export class UsageError extends Error {}

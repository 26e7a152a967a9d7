import * as z from 'zod';
import { dateTime } from './common.ts';

export const jobFormats = ['jira-csv', 'github-json'] as const;

export const ImportJobQuery = z.object({
  format: z.enum(jobFormats, { error: `must be one of: ${jobFormats.join(', ')}` }).meta({
    description:
      'The file: `jira-csv` (a Jira Cloud CSV export, `text/csv`) or `github-json` (`gh issue list --json …`, `application/json`).',
  }),
  project_id: z
    .string({ error: 'is required' })
    .regex(/^[1-9]\d{0,15}$/, { error: 'must be a project id' })
    .meta({ description: 'The project the issues go to.' }),
  dry_run: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .meta({ description: '`true`: write nothing; the report says what would be created and every row that cannot be taken.' }),
});
export type ImportJobQuery = z.output<typeof ImportJobQuery>;

/** The uploaded file, as is (the route reads the raw body; at most 6 MB, docs/import-export.md). */
export const ImportFileBody = z
  .string()
  .meta({ id: 'ImportFile', description: 'The file: CSV text (`jira-csv`; `Content-Type: text/csv`).' });

/** The `github-json` file: GitHub's issues as its API answers them (docs/import-export.md). */
export const ImportJsonBody = z.array(z.looseObject({})).meta({
  id: 'ImportJson',
  description: 'The file: a JSON array of GitHub issues (`github-json`; `Content-Type: application/json`).',
});

const counted = z.object({ name: z.string(), rows: z.number().int() });

export const ImportReport = z
  .object({
    format: z.string(),
    project_id: z.number().int(),
    dry_run: z.boolean(),
    rows: z.number().int(),
    created: z.number().int().meta({ description: 'Issues created (dry run: that would be).' }),
    already_imported: z.number().int().meta({ description: 'Rows whose source key an earlier import took: nothing written.' }),
    rejected: z.number().int(),
    created_sprints: z.array(z.string()),
    created_labels: z.array(z.string()),
    unknown_people: z
      .array(counted)
      .meta({ description: 'People with no account (by e-mail): their issues are left unassigned.' }),
    unmapped_statuses: z.array(z.object({ status: z.string(), rows: z.number().int(), imported_as: z.string() })),
    rejected_rows: z.array(z.object({ row: z.number().int(), key: z.string(), errors: z.array(z.string()) })),
    warnings: z.array(z.object({ row: z.number().int(), key: z.string(), warnings: z.array(z.string()) })),
    parents: z.object({
      linked: z.number().int(),
      unresolved: z.array(z.object({ row: z.number().int(), key: z.string(), parent_key: z.string(), reason: z.string() })),
    }),
    would_create: z
      .array(
        z.object({
          row: z.number().int(),
          key: z.string(),
          title: z.string(),
          status: z.string(),
          sprint: z.string().nullable(),
        }),
      )
      .optional(),
  })
  .meta({
    id: 'ImportReport',
    description:
      'Counts are exact; each list holds at most its first 100 entries. `row`: the line (CSV) or index from 1 (JSON) of the record.',
  });

export const ImportJob = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']).meta({
      description:
        '`queued` (waiting, or between two runs of a long import), `running`, `succeeded`, `failed` (`error` says why).',
    }),
    format: z.enum(jobFormats),
    project_id: z.number().int(),
    dry_run: z.boolean(),
    bytes: z.number().int(),
    progress: z.object({ rows: z.number().int(), created: z.number().int(), rejected: z.number().int() }),
    report: ImportReport.nullable().meta({ description: 'Once the job has finished.' }),
    error: z.string().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'ImportJob' });
export type ImportJob = z.infer<typeof ImportJob>;

import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { StateCategory } from './states.ts';
import { isTimeZone } from '../vocabulary/values.ts';
import { dateTime } from './common.ts';
import { IssuePriority, IssueStatus, IssueType } from './issues.ts';

export const jobFormats = ['jira-csv', 'github-json', 'export'] as const;
export type JobFormat = (typeof jobFormats)[number];

const flag = (description: string) =>
  meta(z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })), { description });

export const ImportJobQuery = z.object({
  format: meta(z.enum(jobFormats, { error: `must be one of: ${jobFormats.join(', ')}` }), {
    description:
      'The file: `jira-csv` (a Jira Cloud CSV export, `text/csv`), `github-json` (`gh issue list --json …`, `application/json`) ' +
      'or `export` (an export file of this service, `application/x-ndjson`: into the organisation, no `project_id`).',
  }),
  project_id: meta(
    z.optional(z.string({ error: 'is required' }).check(z.regex(/^[1-9]\d{0,15}$/, { error: 'must be a project id' }))),
    { description: 'The project the issues go to (required for `jira-csv` and `github-json`; none for `export`).' },
  ),
  dry_run: flag('`true`: write nothing; the report says what would be created and every row that cannot be taken.'),
  keep_numbers: flag(
    "`true`: each issue keeps the number of its key where it is free (`DI-127` stays `DI-127`; Jira keys must have the project's prefix), " +
      'and later issues continue after the highest. An export file always keeps them.',
  ),
});
export type ImportJobQuery = z.output<typeof ImportJobQuery>;

/** How a source's words become ours (docs/import-export.md: Mapping); the same file as the CLI's `--mapping`. */
export const ImportMapping = meta(
  z.strictObject(
    {
      statuses: meta(z.optional(z.record(z.string(), IssueStatus)), { description: 'A source status -> a status here.' }),
      defaultStatus: meta(z.optional(IssueStatus), {
        description: 'The status of a record whose status is not mapped (default `todo`).',
      }),
      priorities: z.optional(z.record(z.string(), IssuePriority)),
      types: z.optional(z.record(z.string(), IssueType)),
      people: meta(z.optional(z.record(z.string(), z.email({ error: 'must be an e-mail address' }))), {
        description: 'A source name or id for a person (a Jira display name or account id, a GitHub login) -> an e-mail address.',
      }),
      timeZone: meta(
        z.optional(z.string().check(z.refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Paris' }))),
        { description: "The time zone of the date-times Jira's CSV writes without one (default `UTC`)." },
      ),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? undefined : 'must be an object') },
  ),
  { id: 'ImportMapping', description: 'Every map is matched ignoring case; an entry adds to or replaces a default.' },
);
export type ImportMapping = z.output<typeof ImportMapping>;

/** A file with its mapping: what a client sends when it maps names (`application/json`, an object). */
export const ImportEnvelope = meta(
  z.strictObject(
    {
      file: meta(z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be the text of the file') }), {
        description: 'The file, as text (the CSV, the JSON array, the JSON Lines).',
      }),
      mapping: z.optional(z.nullable(ImportMapping)),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? undefined : 'must be an object with `file` and `mapping`') },
  ),
  { id: 'ImportEnvelope', description: 'The file and how to map its names: the way to send a mapping.' },
);
export type ImportEnvelope = z.output<typeof ImportEnvelope>;

/** The uploaded file, as is (the route reads the raw body; at most 6 MB, docs/import-export.md). */
export const ImportFileBody = meta(z.string(), { id: 'ImportFile', description: 'The file itself.' });

/** A GitHub issues file: a JSON array (`gh issue list --json …`), or the file with its mapping. */
export const ImportJsonBody = meta(
  z.union([
    meta(z.array(z.record(z.string(), z.unknown())), {
      description: 'The GitHub issues, as `gh issue list --json …` writes them.',
    }),
    ImportEnvelope,
  ]),
  { id: 'ImportJsonBody' },
);

const counted = z.object({ name: z.string(), rows: z.number().check(z.int()) });

export const ImportReport = meta(
  z.object({
    format: z.string(),
    project_id: z.number().check(z.int()),
    dry_run: z.boolean(),
    keep_numbers: z.boolean(),
    rows: z.number().check(z.int()),
    created: meta(z.number().check(z.int()), { description: 'Issues created (a dry run: 0; see `would_create`).' }),
    already_imported: meta(z.number().check(z.int()), {
      description:
        'Rows whose source key an earlier import took: nothing written, and nothing else reported of them (their `keys` only).',
    }),
    rejected: z.number().check(z.int()),
    comments: meta(z.number().check(z.int()), { description: 'Comments created with the issues.' }),
    created_sprints: z.array(z.string()),
    created_labels: z.array(z.string()),
    created_states: meta(z.array(z.object({ name: z.string(), category: StateCategory })), {
      description:
        "States made for source statuses the project had none of (`In Review`, a status the mapping maps but that is not a category's own name), each once.",
    }),
    unknown_people: meta(z.array(counted), {
      description:
        "People with no account (by e-mail): their issues are left unassigned, their reports and comments the importer's.",
    }),
    unmapped_statuses: z.array(z.object({ status: z.string(), rows: z.number().check(z.int()), imported_as: z.string() })),
    unknown_columns: meta(z.array(z.object({ name: z.string(), values: z.number().check(z.int()) })), {
      description: 'Columns (JSON: fields) the import does not read, each once, with how many values they held.',
    }),
    rejected_rows: z.array(z.object({ row: z.number().check(z.int()), key: z.string(), errors: z.array(z.string()) })),
    warnings: meta(z.array(z.object({ row: z.number().check(z.int()), key: z.string(), warnings: z.array(z.string()) })), {
      description: 'What a row had that was not taken, each naming its column and value.',
    }),
    sprint_history: meta(z.array(z.object({ row: z.number().check(z.int()), key: z.string(), sprints: z.array(z.string()) })), {
      description: 'The sprints a row names before its last (its sprint here).',
    }),
    attachment_links: meta(
      z.array(
        z.object({
          row: z.number().check(z.int()),
          key: z.string(),
          links: z.array(z.object({ name: z.string(), url: z.string() })),
        }),
      ),
      {
        description:
          "Files attached in the source (Jira's `Attachment` columns, GitHub uploads linked from a body or comment), per issue: kept as links, never fetched; a Jira issue's are also listed at the end of its description.",
      },
    ),
    parents: z.object({
      linked: z.number().check(z.int()),
      already_linked: meta(z.number().check(z.int()), {
        description: 'Children an earlier import linked to their parent, found linked: nothing written.',
      }),
      unresolved: z.array(
        z.object({ row: z.number().check(z.int()), key: z.string(), parent_key: z.string(), reason: z.string() }),
      ),
    }),
    relations: z.object({
      linked: z.number().check(z.int()),
      already_linked: meta(z.number().check(z.int()), {
        description: 'Relations an earlier import made, found in place: nothing written.',
      }),
      unresolved: z.array(
        z.object({
          row: z.number().check(z.int()),
          key: z.string(),
          type: z.string(),
          other_key: z.string(),
          reason: z.string(),
        }),
      ),
    }),
    keys: meta(z.record(z.string(), z.string()), {
      description: 'Every source key taken (now or before) -> its issue key here: `{"DI-127": "DI-127", "DI-128": "APL-3"}`.',
    }),
    would_create: meta(z.optional(z.number().check(z.int())), {
      description: 'A dry run: the issues that would be created (`created` is 0: nothing is).',
    }),
    would_create_comments: meta(z.optional(z.number().check(z.int())), {
      description: 'A dry run: the comments that would be created with them (`comments` is 0).',
    }),
    would_create_rows: meta(
      z.optional(
        z.array(
          z.object({
            row: z.number().check(z.int()),
            key: z.string(),
            title: z.string(),
            status: z.string(),
            sprint: z.nullable(z.string()),
          }),
        ),
      ),
      { description: 'A dry run: the first issues that would be created.' },
    ),
    issues: meta(z.optional(z.record(z.string(), z.number().check(z.int()))), {
      description: 'An export file: its issue numbers -> the new ids.',
    }),
    created_fields: meta(
      z.optional(
        z.array(
          z.object({
            name: z.string(),
            key: z.string(),
            type: z.string(),
            options: z.array(z.string()),
            column: z.optional(z.string()),
          }),
        ),
      ),
      {
        description:
          "Custom fields made (a dry run: that would be made): a Jira CSV's `Custom field (…)` columns, with the type read from their values, or an export file's fields. Absent when none.",
      },
    ),
    skipped_columns: meta(z.optional(z.array(z.object({ name: z.string(), reason: z.string() }))), {
      description:
        "Jira `Custom field (…)` columns with values that became no field, each with why (Jira's own, such as Rank). Absent when none.",
    }),
  }),
  {
    id: 'ImportReport',
    description:
      'Counts are exact; each list holds at most its first 100 entries (`keys` holds every key). `row`: the line (CSV) or index from 1 (JSON) of the record.',
  },
);

const idMap = z.record(z.string(), z.number().check(z.int()));

/** The report of an export file's import (into the organisation). */
export const ExportImportReport = meta(
  z.object({
    format: z.literal('export'),
    dry_run: z.boolean(),
    lines: z.number().check(z.int()),
    accounts_created: z.array(z.string()),
    projects: meta(z.record(z.string(), ImportReport), { description: "Each project's import, by prefix." }),
    comments: z.number().check(z.int()),
    relations: z.number().check(z.int()),
    activity: meta(z.number().check(z.int()), { description: 'Activity entries restored.' }),
    errors: z.array(z.object({ line: z.number().check(z.int()), error: z.string() })),
    attachments: meta(
      z.object({
        restored: meta(z.number().check(z.int()), {
          description: 'Attachments created with their files re-uploaded and checked.',
        }),
        already_imported: meta(z.number().check(z.int()), {
          description: 'Attachments an earlier run restored: nothing written.',
        }),
        left_out: meta(
          z.array(
            z.object({
              line: z.number().check(z.int()),
              issue_number: z.string(),
              name: z.string(),
              file: z.string(),
              reason: z.string(),
            }),
          ),
          {
            description:
              "Attachments not restored, nothing of them written: a job (no folder of files), a file missing or not its line's, a limit.",
          },
        ),
      }),
      { description: "The file's attachments (docs/import-export.md)." },
    ),
    keys: meta(z.record(z.string(), z.string()), { description: "Every issue's key in the file -> its key here." }),
    ids: z.object({
      accounts: idMap,
      projects: idMap,
      labels: idMap,
      sprints: idMap,
      issues: idMap,
      comments: idMap,
      attachments: idMap,
    }),
  }),
  { id: 'ExportImportReport', description: 'Old ids -> new ids in `ids`; old keys -> new keys in `keys`.' },
);

export const ImportJob = meta(
  z.object({
    id: z.string(),
    status: meta(z.enum(['queued', 'running', 'succeeded', 'failed']), {
      description:
        '`queued` (waiting, or between two runs of a long import), `running`, `succeeded`, `failed` (`error` says why; `report` what was created before).',
    }),
    format: z.enum(jobFormats),
    project_id: meta(z.nullable(z.number().check(z.int())), { description: 'null for an export file (the organisation).' }),
    dry_run: z.boolean(),
    keep_numbers: z.boolean(),
    mapping: z.nullable(ImportMapping),
    bytes: z.number().check(z.int()),
    progress: z.object({
      rows: z.number().check(z.int()),
      created: meta(z.number().check(z.int()), { description: 'Issues created so far (a dry run: 0).' }),
      would_create: meta(z.optional(z.number().check(z.int())), {
        description: 'A dry run: the issues that would be created so far.',
      }),
      rejected: z.number().check(z.int()),
    }),
    report: meta(z.nullable(z.union([ImportReport, ExportImportReport])), {
      description: 'Once the job has finished (a failed job: what it created before it failed).',
    }),
    error: z.nullable(z.string()),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'ImportJob' },
);
export type ImportJob = z.infer<typeof ImportJob>;

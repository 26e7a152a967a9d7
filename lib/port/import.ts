import { accountsByEmail, importedIssueRecord, importedIssues, importRefusals, sprintsByName } from '../db/imports.ts';
import { catalogueOf, foldName } from '../db/labels.ts';
import { getProjectItem } from '../db/projects.ts';
import { keys } from '../db/keys.ts';
import { getItem, Refused } from '../db/transactions.ts';
import { createIssue, updateIssue } from '../domain/issues.ts';
import { createLabel } from '../domain/labels.ts';
import { createSprint } from '../domain/sprints.ts';
import { NotFoundError, ValidationError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { CsvReader } from '../domain/port/csv.ts';
import {
  githubRecord,
  jiraColumns,
  jiraRecord,
  mappingWith,
  missingJiraColumns,
  planRecord,
  type ImportMapping,
  type SourceRecord,
} from '../domain/port/sources.ts';

/**
 * Imports issues from another tracker's file into one project, through the issue write path (every
 * counter and index stays right), one record at a time in file order (so the lists keep the
 * file's order), never holding more than a record and the source keys in memory. Idempotent: each
 * issue's create transaction also puts the record of its source key, refused if present, and keys
 * imported before are skipped without a write. Parents are linked once every record is in.
 */

export type IssueSourceFormat = 'jira-csv' | 'github-json';
/** What a session reports it imports: an issue source, or (lib/port/import-export.ts) an export file. */
export type SessionFormat = IssueSourceFormat | 'export';

/** What an import did (or, dry, would do). Lists are capped at REPORT_CAP entries; counts are exact. */
export interface ImportReport {
  format: string;
  project_id: number;
  dry_run: boolean;
  rows: number;
  /** Issues created (dry run: that would be). */
  created: number;
  /** Rows whose source key was imported before: nothing written. */
  already_imported: number;
  rejected: number;
  created_sprints: string[];
  created_labels: string[];
  /** People with no account (by e-mail): their issues are left unassigned. */
  unknown_people: { name: string; rows: number }[];
  /** Source statuses the mapping does not hold, and how many rows had each. */
  unmapped_statuses: { status: string; rows: number; imported_as: string }[];
  rejected_rows: { row: number; key: string; errors: string[] }[];
  warnings: { row: number; key: string; warnings: string[] }[];
  parents: { linked: number; unresolved: { row: number; key: string; parent_key: string; reason: string }[] };
  /** Dry run: the first issues that would be created. */
  would_create?: { row: number; key: string; title: string; status: string; sprint: string | null }[];
  /** Source key -> new issue id, for the records created by this run (export files: the id map). */
  issues?: Record<string, number> | undefined;
}

export const REPORT_CAP = 1000;

/** An import stopped at its deadline; run again, it goes on (what it created is skipped as imported). */
export class ImportInterrupted extends Error {
  /** The report up to where it stopped. */
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('the import stopped at its deadline');
    this.report = report;
  }
}

export interface ImportOptions {
  orgId: number;
  projectId: number;
  format: SessionFormat;
  dryRun?: boolean | undefined;
  mapping?: Partial<ImportMapping> | undefined;
  /** The account the import acts as (an admin); default: the organisation's first admin. */
  actorId?: number | undefined;
  /** Called after every `progressEvery` rows with the report so far (a job stores it). */
  onProgress?: ((report: ImportReport) => Promise<void> | void) | undefined;
  progressEvery?: number | undefined;
  /** Records in flight at once (default DEFAULT_CONCURRENCY). */
  concurrency?: number | undefined;
  /** Entries kept in each list of the report (default REPORT_CAP). */
  reportCap?: number | undefined;
  /**
   * Time (ms since the epoch) after which no record starts (once one issue was created): the import
   * stops with `ImportInterrupted`, and a run again goes on from there.
   */
  deadline?: number | undefined;
  /** Keep the source key -> issue id map in the report (export files). */
  keepIds?: boolean | undefined;
}

/** A file's text, whole or in chunks (a stream of a large file). */
export type Chunks = AsyncIterable<string> | Iterable<string>;

/** The records of a Jira CSV export or a GitHub issues JSON file; a malformed row is reported, not thrown. */
export async function* sourceRecords(
  format: IssueSourceFormat,
  chunks: Chunks,
): AsyncGenerator<(SourceRecord & { id?: string | undefined }) | { row: number; error: string }> {
  if (format === 'jira-csv') {
    const reader = new CsvReader();
    let columns: ReturnType<typeof jiraColumns> | undefined;
    const take = function* (records: { fields: string[]; line: number }[]) {
      for (const r of records) {
        if (!columns) {
          columns = jiraColumns(r.fields);
          const missing = missingJiraColumns(columns);
          if (missing.length > 0) throw new ValidationError([`the CSV header has no ${missing.join(', ')} column`]);
          continue;
        }
        if (r.fields.every((f) => f.trim() === '')) continue;
        yield jiraRecord(r.fields, columns, r.line);
      }
    };
    for await (const chunk of chunks) yield* take(reader.push(chunk));
    yield* take(reader.end());
    if (!columns) throw new ValidationError(['the file is empty']);
    return;
  }
  let text = '';
  for await (const chunk of chunks) text += chunk;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new ValidationError([`the file is not JSON (${(err as Error).message})`]);
  }
  if (!Array.isArray(parsed)) throw new ValidationError(['the file must be a JSON array of issues']);
  for (const [i, value] of parsed.entries()) {
    const r = githubRecord(value, i + 1);
    yield r;
  }
}

/**
 * Records in flight at once. One by default: the issues then keep the file's order in their lists,
 * and creates into one list do not race for its counters (on DynamoDB Local, 8 at once measured
 * slower than one at a time: docs/import-export.md).
 */
export const DEFAULT_CONCURRENCY = 1;

/** Feeds records to a session with at most `limit` in flight; on a failure, lets those in flight settle first. */
async function takeAll(session: ImportSession, records: AsyncIterable<Parameters<ImportSession['take']>[0]>, limit: number) {
  const inFlight = new Set<Promise<unknown>>();
  try {
    for await (const r of records) {
      const p: Promise<unknown> = session.take(r).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    await Promise.allSettled(inFlight);
  }
}

/** Runs an import of issue records into a project. */
export async function importIssues(options: ImportOptions, chunks: Chunks): Promise<ImportReport> {
  const session = await ImportSession.open(options, options.format === 'jira-csv' ? 'jira' : 'github');
  if (options.format === 'export') throw new ValidationError(['an export file is imported into an organisation, not a project']);
  await takeAll(session, sourceRecords(options.format, chunks), options.concurrency ?? DEFAULT_CONCURRENCY);
  return session.finish();
}

/** One import's state: what it found in the organisation, what it made, and its report. */
export class ImportSession {
  readonly report: ImportReport;
  private readonly seen = new Set<string>();
  /** Source key -> issue (created now, or before), for parents. */
  private readonly issues = new Map<string, { id: number; sprintId: number | null; number?: string }>();
  /** Jira `Issue id` -> `Issue key`, for parents given by id. */
  private readonly idToKey = new Map<string, string>();
  private readonly parentLinks: { row: number; key: string; parentKey: string }[] = [];
  private readonly unknownPeople = new Map<string, number>();
  private readonly pendingSprints = new Map<string, Promise<number | null>>();
  /** Records whose parent was given at their create. */
  private readonly linkedAtCreate = new Set<string>();
  /** Records created by this run. */
  private readonly createdNow = new Set<string>();
  private readonly pendingLabels = new Map<string, Promise<number>>();
  private readonly unmapped = new Map<string, number>();
  /** The catalogue's labels by folded name: their ids (0: would be created, dry run). */
  private readonly labelNames: Map<string, number>;

  private readonly options: ImportOptions;
  readonly source: string;
  readonly caller: Principal;
  private readonly mapping: ImportMapping;
  private readonly accounts: Map<string, { id: number }>;
  private readonly sprints: Map<string, { id: number; status: string }>;
  private readonly imported: Map<string, { issueId: number; sprintId: number | null }>;

  private constructor(
    options: ImportOptions,
    source: string,
    caller: Principal,
    mapping: ImportMapping,
    accounts: Map<string, { id: number }>,
    sprints: Map<string, { id: number; status: string }>,
    imported: Map<string, { issueId: number; sprintId: number | null }>,
    labels: { id: number; name: string }[],
  ) {
    this.options = options;
    this.source = source;
    this.caller = caller;
    this.mapping = mapping;
    this.accounts = accounts;
    this.sprints = sprints;
    this.imported = imported;
    this.labelNames = new Map(labels.map((l) => [foldName(l.name), l.id]));
    this.report = {
      format: options.format,
      project_id: options.projectId,
      dry_run: Boolean(options.dryRun),
      rows: 0,
      created: 0,
      already_imported: 0,
      rejected: 0,
      created_sprints: [],
      created_labels: [],
      unknown_people: [],
      unmapped_statuses: [],
      rejected_rows: [],
      warnings: [],
      parents: { linked: 0, unresolved: [] },
      ...(options.dryRun ? { would_create: [] } : {}),
      ...(options.keepIds ? { issues: {} } : {}),
    };
  }

  /** Reads what the import maps onto: the project (404 if missing), accounts, sprints, labels, keys imported before. */
  static async open(options: ImportOptions, source: string): Promise<ImportSession> {
    const [project, accounts, sprints, imported] = await Promise.all([
      getProjectItem(options.orgId, options.projectId),
      accountsByEmail(options.orgId),
      sprintsByName(options.orgId, options.projectId),
      importedIssues(options.orgId, options.projectId, source),
    ]);
    if (!project) throw new NotFoundError('Project');
    const actorId =
      options.actorId ?? [...accounts.values()].filter((a) => a.role === 'admin').sort((a, b) => a.id - b.id)[0]?.id;
    if (actorId === undefined) throw new ValidationError(['the organisation has no admin account to import as']);
    const caller: Principal = { orgId: options.orgId, accountId: actorId, role: 'admin', tokenHash: '' };
    const labels = [...catalogueOf(project)].map(([id, l]) => ({ id, name: l.name }));
    return new ImportSession(options, source, caller, mappingWith(options.mapping), accounts, sprints, imported, labels);
  }

  private get cap() {
    return this.options.reportCap ?? REPORT_CAP;
  }

  private reject(row: number, key: string, errors: string[]) {
    this.report.rejected += 1;
    if (this.report.rejected_rows.length < this.cap) this.report.rejected_rows.push({ row, key, errors });
  }

  /** Takes one record: maps it, and (unless dry) creates its sprint, labels and issue. */
  async take(r: (SourceRecord & { id?: string | undefined }) | { row: number; error: string }): Promise<number | undefined> {
    // A run stops at its deadline only once it has created something: each run makes progress.
    // A dry run writes nothing and never stops (reading and mapping 10,000 rows takes about a second).
    const { deadline, dryRun } = this.options;
    if (deadline !== undefined && !dryRun && this.report.created > 0 && Date.now() > deadline)
      throw new ImportInterrupted(this.report);
    this.report.rows += 1;
    if ('error' in r) {
      this.reject(r.row, '', [r.error]);
      return undefined;
    }
    const planned = planRecord(r, this.mapping);
    if (!planned.ok) {
      this.reject(planned.row, planned.key, planned.errors);
      return undefined;
    }
    const { key, row } = planned;
    if (this.seen.has(key)) {
      this.reject(row, key, [`the issue key ${key} appears more than once in the file: only its first row is imported`]);
      return undefined;
    }
    this.seen.add(key);
    if (r.id) this.idToKey.set(r.id, key);
    if (planned.parentKey) this.parentLinks.push({ row, key, parentKey: planned.parentKey });
    const warnings = [...planned.warnings];
    if (!this.mapping.statuses[r.status.trim().toLowerCase()]) {
      this.unmapped.set(r.status, (this.unmapped.get(r.status) ?? 0) + 1);
    }
    let assigneeId: number | undefined;
    const person = planned.assigneeEmail ?? planned.unknownPerson;
    if (planned.assigneeEmail) assigneeId = this.accounts.get(planned.assigneeEmail)?.id;
    if (person && assigneeId === undefined) {
      this.unknownPeople.set(person, (this.unknownPeople.get(person) ?? 0) + 1);
      warnings.push(`assignee "${person}" has no account here: left unassigned`);
    }
    const before = this.imported.get(key);
    if (before) {
      this.report.already_imported += 1;
      this.issues.set(key, { id: before.issueId, sprintId: before.sprintId });
      return undefined;
    }
    const sprintId = r.sprintId !== undefined ? r.sprintId : planned.sprint ? await this.sprintFor(planned.sprint.name) : null;
    const labels = await this.labelsFor((planned.input.labels ?? []).map(String), warnings);
    if (warnings.length > 0 && this.report.warnings.length < this.cap) this.report.warnings.push({ row, key, warnings });

    if (this.options.dryRun) {
      this.report.created += 1;
      if ((this.report.would_create?.length ?? 0) < this.cap) {
        this.report.would_create?.push({
          row,
          key,
          title: planned.input.title,
          status: planned.input.status ?? 'todo',
          sprint: planned.sprint?.name ?? null,
        });
      }
      this.issues.set(key, { id: 0, sprintId });
      await this.progress();
      return undefined;
    }
    // A parent met before (created by this run, or imported before) is given at once; others are
    // linked once every record is in (`finish`).
    const parentId = planned.parentKey ? this.knownIssue(planned.parentKey)?.id : undefined;
    const create = (withParent: boolean) =>
      createIssue(
        this.caller,
        { projectId: this.options.projectId, sprintId: sprintId ?? null },
        {
          ...planned.input,
          labels,
          ...(assigneeId === undefined ? {} : { assignee_id: assigneeId }),
          ...(withParent && parentId ? { parent_id: parentId } : {}),
        },
        {
          items: (created) => [importedIssueRecord(this.caller.orgId, this.options.projectId, this.source, key, created)],
          created_at: planned.times.created_at,
          updated_at: planned.times.updated_at ?? planned.times.created_at,
        },
      );
    try {
      let issue;
      try {
        issue = await create(true);
        if (parentId) this.linkedAtCreate.add(key);
      } catch (err) {
        // The parent refused it (full, too deep): created without, the link is tried (and reported) at the end.
        if (!(parentId && err instanceof ValidationError)) throw err;
        issue = await create(false);
      }
      this.report.created += 1;
      this.createdNow.add(key);
      this.issues.set(key, { id: issue.id, sprintId: issue.sprint_id, number: issue.issue_number });
      if (this.report.issues) this.report.issues[key] = issue.id;
      await this.progress();
      return issue.id;
    } catch (err) {
      if (err instanceof Refused && err.reason === importRefusals.imported) {
        // Another run imported it meanwhile.
        this.report.already_imported += 1;
        return undefined;
      }
      if (err instanceof ValidationError) {
        this.reject(row, key, err.errors);
        return undefined;
      }
      throw err;
    }
  }

  private async progress() {
    const every = this.options.progressEvery ?? 100;
    if (this.options.onProgress && this.report.rows % every === 0) await this.options.onProgress(this.report);
  }

  /** The sprint of that name, created (in planning) the first time a record names it (once, however many wait). */
  private sprintFor(name: string): Promise<number | null> {
    const known = this.sprints.get(name);
    if (known) return Promise.resolve(this.options.dryRun && known.id === 0 ? null : known.id);
    let pending = this.pendingSprints.get(name);
    if (!pending) {
      pending = (async () => {
        const id = this.options.dryRun ? 0 : (await createSprint(this.caller, this.options.projectId, { name })).id;
        this.sprints.set(name, { id, status: 'planning' });
        this.report.created_sprints.push(name);
        return this.options.dryRun ? null : id;
      })();
      this.pendingSprints.set(name, pending);
    }
    return pending;
  }

  /** The record's labels, those missing from the catalogue created first (a full catalogue: dropped, with a warning). */
  private async labelsFor(names: string[], warnings: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const name of names) {
      try {
        await this.ensureLabel(name);
        kept.push(name);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        warnings.push(`label "${name}" left out: ${err.errors.join('; ')}`);
      }
    }
    return kept;
  }

  /** The id of the catalogue's label of that name, created (with the colour and description given) if missing, once. */
  ensureLabel(name: string, details: { color?: unknown; description?: unknown } = {}): Promise<number> {
    const folded = foldName(name);
    const known = this.labelNames.get(folded);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.pendingLabels.get(folded);
    if (!pending) {
      const color = typeof details.color === 'string' ? details.color : undefined;
      const description = typeof details.description === 'string' ? details.description : undefined;
      pending = (async () => {
        const id = this.options.dryRun
          ? 0
          : (
              await createLabel(this.caller, this.options.projectId, {
                name,
                ...(color ? { color } : {}),
                ...(description ? { description } : {}),
              })
            ).id;
        this.labelNames.set(folded, id);
        this.report.created_labels.push(name);
        return id;
      })();
      // A refusal (a full catalogue) is answered to every row waiting, and asked again by none.
      this.pendingLabels.set(folded, pending);
    }
    return pending;
  }

  /** A written issue (created now or imported before) by its source key, or by its Jira `Issue id`. */
  private knownIssue(ref: string): { id: number; sprintId: number | null } | undefined {
    const found = this.issues.get(ref) ?? this.issues.get(this.idToKey.get(ref) ?? '');
    return found && found.id > 0 ? found : undefined;
  }

  /** The issue imported (now or before) from a source key. */
  issueOf(key: string): { id: number; sprintId: number | null; number?: string } | undefined {
    return this.issues.get(key);
  }

  /** Links parents (by source key, or by Jira issue id), then closes the report. */
  async finish(): Promise<ImportReport> {
    for (const link of this.parentLinks) {
      if (this.linkedAtCreate.has(link.key)) {
        this.report.parents.linked += 1;
        continue;
      }
      const child = this.issues.get(link.key);
      const parentKey = this.issues.has(link.parentKey) ? link.parentKey : this.idToKey.get(link.parentKey);
      const parent = parentKey === undefined ? undefined : this.issues.get(parentKey);
      const unresolved = (reason: string) => {
        if (this.report.parents.unresolved.length < this.cap)
          this.report.parents.unresolved.push({ row: link.row, key: link.key, parent_key: link.parentKey, reason });
      };
      if (!child) continue;
      if (!parent) {
        unresolved('the parent is not in the file');
        continue;
      }
      if (this.options.dryRun) {
        this.report.parents.linked += 1;
        continue;
      }
      try {
        // Imported before (a second run, a job's later run): linked then, unless it was not.
        const stored = this.createdNow.has(link.key)
          ? undefined
          : await getItem<{ parent_id?: number | null; sprint_id?: number | null }>(
              keys.issue(this.caller.orgId, this.options.projectId, child.id),
            );
        if (stored && (stored.parent_id ?? null) === parent.id) {
          this.report.parents.linked += 1;
          continue;
        }
        const sprintId = stored ? (stored.sprint_id ?? null) : child.sprintId;
        await updateIssue(this.caller, { projectId: this.options.projectId, sprintId }, child.id, { parent_id: parent.id });
        this.report.parents.linked += 1;
      } catch (err) {
        if (err instanceof ValidationError || err instanceof NotFoundError) unresolved(err.message);
        else throw err;
      }
    }
    this.report.would_create?.sort((a, b) => a.row - b.row);
    this.report.rejected_rows.sort((a, b) => a.row - b.row);
    this.report.warnings.sort((a, b) => a.row - b.row);
    this.report.unknown_people = [...this.unknownPeople]
      .map(([name, rows]) => ({ name, rows }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    this.report.unmapped_statuses = [...this.unmapped].map(([status, rows]) => ({
      status,
      rows,
      imported_as: this.mapping.defaultStatus,
    }));
    if (this.options.onProgress) await this.options.onProgress(this.report);
    return this.report;
  }
}

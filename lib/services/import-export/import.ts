import { adoptHandles } from '../accounts.ts';
import { activityPut, importedSequences } from '../../db/issues/activity.ts';
import { newComment, type CommentFields } from '../../db/comments/comments.ts';
import { accountsByEmail } from '../../db/organisation/accounts.ts';
import {
  importedCommentRecord,
  importedComments,
  importedIssueRecord,
  importedIssues,
  importRefusals,
  reservedNumbers,
  reserveIssueNumbers,
  sprintsByName,
  type ImportedIssue,
} from '../../db/imports/imports.ts';
import { catalogueOf, foldName } from '../../db/issues/labels.ts';
import { getProjectItem, lastIssueNumber } from '../../db/projects/projects.ts';
import { advance } from '../../db/core/sequences.ts';
import { type GuardedItem, isRefused } from '../../db/core/transactions.ts';
import { createImportedComment } from '../comments.ts';
import {
  createIssue,
  createIssuesTogether,
  reservedShare,
  reserveIssues,
  updateIssue,
  type ImportedIssue as IssueImport,
} from '../issues.ts';
import { createLabel } from '../labels.ts';
import { createState, listStates } from '../states.ts';
import { addRelation } from '../relations.ts';
import { createSprint } from '../sprints.ts';
import { NotFoundError, ValidationError } from '../../vocabulary/errors.ts';
import type { Principal } from '../../model/principal.ts';
import type { IssueCreate, IssueStatus } from '../../schemas/issues.ts';
import { workflowOf } from '../../db/projects/workflow.ts';
import { statusKey } from '../../vocabulary/workflow.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import { keptNumbers, mappingWith, planRecord, type ImportMapping } from '../../model/formats/sources.ts';
import type { ExactIssue, ImportRecord, IssueRecord } from '../../model/formats/records.ts';
import {
  closeReport,
  commentAuthors,
  emptyReport,
  importActor,
  isUnmapped,
  parentSteps,
  peopleOf,
  relationOnce,
  repeatedKey,
  rowFate,
  stateToMake,
  type AuthoredComment,
  type ImportReport,
  type Planned,
} from '../../model/formats/import-plans.ts';
import { issueItem, type IssueItem } from '../../db/issues/issue-item.ts';
import { checkFile, count, sourceRecords, type Chunks, type FileStats, type IssueSourceFormat } from './file-checks.ts';
import { issuesById } from '../../db/issues/sub-issues.ts';
import { fieldsOf } from '../../db/projects/custom-fields.ts';
import { fieldNamed, keyFromName, type FieldDefinition } from '../../model/custom-fields.ts';
import { customValuesOf, inferredFields, rankedOrder, type InferredField } from '../../model/formats/custom-columns.ts';
import { FieldCreateFields } from '../../schemas/custom-fields.ts';
import { createField } from '../custom-fields.ts';

/**
 * The one writer of an import. Every source is a stream of records (lib/model/formats/records.ts):
 * a Jira or GitHub file's, or an export file's issue lines (./import-export.ts). The session maps
 * each record through the pure plans (lib/model/formats/import-plans.ts), writes it through the
 * issue write path, and keeps one report. The file is checked whole before the first write, then
 * read record by record in file order. Parents and relations are linked once every record is in.
 */

export type { Chunks, FileStats, ImportRecord, ImportReport, IssueSourceFormat };
export { parentSteps, sourceRecords };

/** What a session reports it imports: an issue source, or (lib/services/import-export/import-export.ts) an export file. */
export type SessionFormat = IssueSourceFormat | 'export';

export const REPORT_CAP = 1000;

/** An import stopped at its deadline; run again, it goes on (what it created is skipped as imported). */
export class ImportInterrupted<R extends object = ImportReport> extends Error {
  /** The report up to where it stopped. */
  readonly report: R;
  constructor(report: R) {
    super('the import stopped at its deadline');
    this.name = 'ImportInterrupted';
    this.report = report;
  }
}

/**
 * An import that failed after it began writing: `report` says exactly what it created (run again
 * after the fix, it creates only the rest).
 */
export class ImportFailed<R extends object = ImportReport> extends Error {
  readonly report: R;
  constructor(cause: unknown, report: R) {
    super(cause instanceof ValidationError ? cause.errors.join('; ') : (cause as Error).message, { cause });
    this.name = 'ImportFailed';
    this.report = report;
  }
}

export interface ImportOptions {
  orgId: number;
  projectId: number;
  format: SessionFormat;
  dryRun?: boolean | undefined;
  mapping?: Partial<ImportMapping> | undefined;
  /** Keys keep their number where it is free (`DI-127` stays `DI-127`): Jira keys must have the project's prefix. */
  keepNumbers?: boolean | undefined;
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
  /**
   * The import this run is part of (a job's id), kept on each source key's record: rows an earlier
   * run of it created are reported as its own, rows any other import took only counted.
   */
  run?: string | undefined;
}

/** A file the import reads twice (checked whole, then taken): its chunks again at each call. */
export type FileSource = Chunks | (() => Chunks);

/**
 * A file that can be read again: a function is called for each reading, an array or a string is
 * read again; a one-shot stream is kept in memory as it is read the first time.
 */
export function rereadable(file: FileSource): () => Chunks {
  if (typeof file === 'function') return file;
  if (typeof file === 'string' || Array.isArray(file)) return () => file;
  let kept: string[] | undefined;
  return () => {
    if (kept) return kept;
    const into: string[] = [];
    return (async function* () {
      for await (const chunk of file) {
        into.push(chunk);
        yield chunk;
      }
      kept = into;
    })();
  };
}

/**
 * Records in flight at once. One by default: the issues then keep the file's order in their lists,
 * and creates into one list do not race for its counters (on DynamoDB Local, 8 at once measured
 * slower than one at a time: docs/import-export.md).
 */
export const DEFAULT_CONCURRENCY = 1;

/** Feeds records to a session with at most `limit` in flight; on a failure, lets those in flight settle first. */
async function takeAll(
  session: ImportSession,
  records: AsyncIterable<Parameters<ImportSession['take']>[0]> | Iterable<Parameters<ImportSession['take']>[0]>,
  limit: number,
) {
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

/** Children imported before read back at once when parents are linked (one BatchGetItem). */
const STORED_PAGE = 100;

/** Runs an import of issue records into a project. */
export async function importIssues(options: ImportOptions, file: FileSource): Promise<ImportReport> {
  if (options.format === 'export') throw new ValidationError(['an export file is imported into an organisation, not a project']);
  const format = options.format;
  const session = await ImportSession.open(options, format === 'jira-csv' ? 'jira' : 'github');
  session.batched = true;
  const read = rereadable(file);
  const checked = await checkFile(format, read(), options.keepNumbers ? { prefix: session.prefix } : undefined);
  session.noteUnknown(checked.stats);
  await session.keepNumbers(checked.numbers);
  try {
    await session.customFields(checked.stats);
    const records = sourceRecords(format, read());
    await takeAll(session, checked.stats.ranked ? await ranked(records) : records, options.concurrency ?? DEFAULT_CONCURRENCY);
    return await session.finish();
  } catch (err) {
    if (err instanceof ImportInterrupted) throw err;
    throw new ImportFailed(err, session.closeReport());
  }
}

/**
 * A Jira file's records with each list's issues in the order of their rank (`Custom field (Rank)`),
 * in the places that list's rows had in the file: held in memory to be sorted (n log n), only when
 * the file has ranks.
 */
async function ranked(records: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const all: ImportRecord[] = [];
  for await (const r of records) all.push(r);
  return rankedOrder(
    all,
    (r) => ('error' in r ? `\u0000${r.row}` : (r.sprint?.name.trim() ?? '')),
    (r) => ('error' in r ? undefined : r.rank),
  );
}

/**
 * Relates two issues (by their keys here): `already` when an earlier import related them, the
 * reason of a refusal (an issue gone, a limit reached); any other failure is thrown.
 */
export async function relateOnce(caller: Principal, from: string, to: string, type: RelationType, createdAt?: string) {
  try {
    await addRelation(caller, from, { type, issue_key: to }, { createdAt });
    return 'linked' as const;
  } catch (err) {
    if (err instanceof ValidationError && /already/.test(err.message)) return 'already' as const;
    if (err instanceof ValidationError || err instanceof NotFoundError) return { refused: err.message };
    throw err;
  }
}

/** Comments written in the issue's own create transaction (two items each); the rest go after it. */
export const COMMENTS_WITH_ISSUE = 25;

/**
 * Creates written together, whatever their lists: their slots taken in one call in file order (so
 * numbers and places follow the file), their parents read side by side, then each list's issues
 * in as few transactions as DynamoDB's limits allow (up to 100 items: about thirteen issues without
 * comments), children in the step after their parents (`createBatch`). Large enough that a list of
 * a file spread over a dozen lists fills its transactions; what waits is a few hundred rows' fields.
 */
export const IMPORT_BATCH = 500;

/** A record as the session will create it (its sprint, labels and people resolved). */
interface PendingCreate {
  row: number;
  key: string;
  input: IssueCreate;
  sprintId: number | null;
  parentKey?: string | undefined;
  times: { created_at?: string | undefined; updated_at?: string | undefined; completed_at?: string | null | undefined };
  exact?: ExactIssue | undefined;
  authorId: number;
  comments: AuthoredComment[];
}

/** One import's state: what it found in the organisation, what it made, and its report. */
export class ImportSession {
  readonly report: ImportReport;
  private readonly seen = new Set<string>();
  /** Source key -> issue (created now, or before), for parents and relations. */
  private readonly issues = new Map<string, { id: number; sprintId: number | null; number?: string; updatedAt?: string }>();
  /** Jira `Issue id` -> `Issue key`, for parents given by id. */
  private readonly idToKey = new Map<string, string>();
  private readonly parentLinks: { row: number; key: string; parentKey: string }[] = [];
  private readonly links: { row: number; key: string; type: RelationType; other: string }[] = [];
  private readonly unknownPeople = new Map<string, number>();
  private readonly pendingSprints = new Map<string, Promise<number | null>>();
  /** Records whose parent was given at their create. */
  private readonly linkedAtCreate = new Set<string>();
  /** Records created by this run. */
  private readonly createdNow = new Set<string>();
  private readonly pendingLabels = new Map<string, Promise<number>>();
  private readonly pendingStates = new Map<string, Promise<void>>();
  private readonly unmapped = new Map<string, number>();
  /** The catalogue's labels by folded name: their ids (0: would be created, dry run). */
  private readonly labelNames: Map<string, number>;
  /** The project's states by their `status` key, with their categories: a source status naming one goes there. */
  private readonly states: Map<string, IssueStatus>;
  /** Source keys that keep their number here (`keepNumbers`, export files). */
  private kept = new Map<string, number>();
  /**
   * Creates are written together (`enqueue`), not one by one: set by `importIssues`.
   * An export file's import reads each issue back as soon as it is taken, so it does not.
   */
  batched = false;
  /** Creates waiting to be written, in file order (whatever their lists). */
  private readonly queue: PendingCreate[] = [];
  /** Keys an earlier run of this import (`options.run`) created. */
  private readonly madeEarlier = new Set<string>();
  /** Source keys of the creates in `queue`. */
  private readonly waiting = new Set<string>();
  /** Source key -> the write of its batch, while it is under way. */
  private readonly writing = new Map<string, Promise<void>>();
  /** Rows when progress was last reported. */
  private progressAt = 0;
  /** Account names by id (`nameOf`). */
  private namesById: Map<number, string> | undefined;
  /** A Jira file's custom columns -> the project's field each fills. */
  private readonly columnFields = new Map<string, FieldDefinition>();

  private readonly options: ImportOptions;
  readonly source: string;
  readonly caller: Principal;
  readonly prefix: string;
  private readonly mapping: ImportMapping;
  private readonly accounts: Map<string, { id: number; name: string }>;
  private readonly sprints: Map<string, { id: number; status: string }>;
  /** Accounts found by a GitHub login: the handle each may take (`noteLogin`). */
  private readonly logins = new Map<number, string>();
  private readonly imported: Map<string, ImportedIssue>;
  private readonly commentsBefore: Map<string, number>;

  private constructor(
    options: ImportOptions,
    found: {
      source: string;
      caller: Principal;
      prefix: string;
      accounts: Map<string, { id: number; name: string }>;
      sprints: Map<string, { id: number; status: string }>;
      imported: Map<string, ImportedIssue>;
      comments: Map<string, number>;
      labels: { id: number; name: string }[];
      states: Map<string, IssueStatus>;
    },
  ) {
    this.options = options;
    this.source = found.source;
    this.caller = found.caller;
    this.prefix = found.prefix;
    this.mapping = mappingWith(options.mapping);
    this.accounts = found.accounts;
    this.sprints = found.sprints;
    this.imported = found.imported;
    this.commentsBefore = found.comments;
    this.labelNames = new Map(found.labels.map((l) => [foldName(l.name), l.id]));
    this.states = found.states;
    this.report = emptyReport(options);
  }

  /** Reads what the import maps onto: the project (404 if missing), accounts, sprints, labels, keys imported before. */
  static async open(options: ImportOptions, source: string): Promise<ImportSession> {
    const [project, accounts, sprints, imported, comments] = await Promise.all([
      getProjectItem(options.orgId, options.projectId),
      accountsByEmail(options.orgId),
      sprintsByName(options.orgId, options.projectId),
      importedIssues(options.orgId, options.projectId, source),
      importedComments(options.orgId, options.projectId, source),
    ]);
    if (!project) throw new NotFoundError('Project');
    const actor = importActor(accounts, options.actorId);
    const actorId = options.actorId ?? actor?.id;
    if (actorId === undefined) throw new ValidationError(['the organisation has no admin account to import as']);
    const caller: Principal = { orgId: options.orgId, accountId: actorId, role: 'admin', tokenHash: '', name: actor?.name };
    const labels = [...catalogueOf(project)].map(([id, l]) => ({ id, name: l.name }));
    return new ImportSession(options, {
      source,
      caller,
      prefix: project.prefix,
      accounts,
      sprints,
      imported,
      comments,
      labels,
      states: new Map(workflowOf(project).states.map((s) => [statusKey(s.name), s.category])),
    });
  }

  private get cap() {
    return this.options.reportCap ?? REPORT_CAP;
  }

  private reject(row: number, key: string, errors: string[]) {
    this.report.rejected += 1;
    if (this.report.rejected_rows.length < this.cap) this.report.rejected_rows.push({ row, key, errors });
  }

  /** Columns (fields) of the file the import does not read, each counted once in the report. */
  noteUnknown(stats: FileStats) {
    this.report.unknown_columns = [...stats.unknown].map(([name, values]) => ({ name, values }));
  }

  /**
   * A Jira file's `Custom field (…)` columns as the project's fields (docs/import-export.md), before
   * the first row: a field of the column's name the project has is filled as it is; any other is
   * made with the type its values show (a dry run only lists it). Jira's own columns and those
   * that cannot be made (a limit, a name too long) are reported in `skipped_columns`, with why.
   */
  async customFields(stats: FileStats): Promise<void> {
    if (!stats.custom) return;
    const { fields, skipped } = inferredFields(stats.custom);
    if (stats.rankColumn && stats.ranked)
      skipped.unshift({
        name: stats.rankColumn,
        reason: "Jira's rank (a lexorank): it orders the issues in their lists, no field",
      });
    if (fields.length === 0 && skipped.length === 0) return;
    const project = await getProjectItem(this.caller.orgId, this.options.projectId);
    if (!project) throw new NotFoundError('Project');
    const have = fieldsOf(project);
    const made: NonNullable<ImportReport['created_fields']> = [];
    for (const [n, f] of fields.entries()) {
      const existing = fieldNamed(have, f.name);
      if (existing) {
        this.columnFields.set(f.column, existing);
        continue;
      }
      const field = await this.madeField(f, 1_000_000 + n);
      if (typeof field === 'string') {
        skipped.push({ name: f.column, reason: field });
        continue;
      }
      have.push(field);
      this.columnFields.set(f.column, field);
      made.push({
        name: field.name,
        key: field.key,
        type: field.type,
        options: field.options.map((o) => o.name),
        column: f.column,
      });
    }
    if (made.length > 0) this.report.created_fields = made;
    if (skipped.length > 0) this.report.skipped_columns = skipped.slice(0, this.cap);
    this.report.unknown_columns = this.report.unknown_columns.filter((c) => !this.columnFields.has(c.name));
  }

  /** A field made for a column (a dry run: as it would be, with made-up ids), or why it cannot be. */
  private async madeField(f: InferredField, dryId: number): Promise<FieldDefinition | string> {
    const parsed = FieldCreateFields.safeParse({
      name: f.name,
      type: f.type,
      ...(f.options.length > 0 ? { options: f.options.map((name) => ({ name })) } : {}),
    });
    if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ');
    const now = new Date().toISOString();
    if (this.options.dryRun) {
      const options = f.options.map((name, i) => ({ id: i + 1, name, color: '' }));
      return {
        id: dryId,
        key: keyFromName(f.name),
        name: f.name,
        type: f.type,
        description: null,
        required: false,
        options,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
    }
    try {
      const c = await createField(this.caller, this.options.projectId, parsed.data);
      return { ...c, version: 1, createdAt: c.created_at, updatedAt: c.updated_at };
    } catch (err) {
      if (err instanceof ValidationError) return err.errors.join('; ');
      throw err;
    }
  }

  /** A Jira row with its custom cells read as values of the fields their columns became (those not taken: warnings). */
  private withCustomValues(r: IssueRecord): IssueRecord {
    if (!r.customCells || this.columnFields.size === 0) return r;
    const warnings = [...(r.warnings ?? [])];
    const custom_fields = customValuesOf(r.customCells, this.columnFields, warnings);
    return { ...r, warnings, custom_fields };
  }

  /**
   * Decides which keys keep their number (`numbers`: key -> the number it carries; those imported
   * before are left out) and, unless dry, reserves them before the first write: the project's
   * sequence moves past them, so no create takes one. A create that takes a number meanwhile makes
   * the reservation decide again.
   */
  async keepNumbers(numbers: [string, number][]): Promise<void> {
    const wanted = numbers.filter(([key]) => !this.imported.has(key));
    if (wanted.length === 0) return;
    const { orgId, projectId } = this.options;
    for (let attempt = 0; attempt < 20; attempt++) {
      const [project, ranges] = await Promise.all([
        getProjectItem(orgId, projectId),
        reservedNumbers(orgId, projectId, this.source),
      ]);
      if (!project) throw new NotFoundError('Project');
      const sequence = lastIssueNumber(project);
      const plan = keptNumbers(wanted, sequence, ranges);
      if (
        plan.reserveTo === undefined ||
        this.options.dryRun ||
        (await reserveIssueNumbers(orgId, projectId, this.source, sequence, plan.reserveTo))
      ) {
        this.kept = plan.kept;
        return;
      }
    }
    throw new Error('the issue numbers to keep could not be reserved: creates kept taking numbers');
  }

  /** A row whose issue an earlier run created: its issue, for links, and its key in the report. */
  private tookBefore(key: string, before: ImportedIssue) {
    this.issues.set(key, { id: before.issueId, sprintId: before.sprintId, number: before.number });
    if (before.number) this.report.keys[key] = before.number;
  }

  private nameOf(accountId: number): string {
    // By id, built once: a search of every account per comment grew with accounts times comments.
    this.namesById ??= new Map([...this.accounts.values()].map((a) => [a.id, a.name]));
    return this.namesById.get(accountId) ?? this.caller.name ?? '';
  }

  /**
   * A row an earlier import took: counted and keyed, nothing else reported (a re-run reports what it
   * looked at). Only comments a stopped run left unwritten are written.
   */
  private async takenBefore(planned: Planned, before: ImportedIssue): Promise<undefined> {
    this.report.already_imported += 1;
    this.tookBefore(planned.key, before);
    const comments = commentAuthors(planned, this.accounts, this.caller.accountId);
    if (!this.options.dryRun) await this.writeComments({ issueId: before.issueId, sprintId: before.sprintId }, comments, true);
    return undefined;
  }

  private warn(row: number, key: string, warnings: string[]) {
    if (warnings.length > 0 && this.report.warnings.length < this.cap) this.report.warnings.push({ row, key, warnings });
  }

  /** A dry run's row: counted as what would be created (the first ones listed), nothing written. */
  private async wouldCreate(planned: Planned, sprintId: number | null, comments: number): Promise<undefined> {
    this.report.would_create = (this.report.would_create ?? 0) + 1;
    this.report.would_create_comments = (this.report.would_create_comments ?? 0) + comments;
    if ((this.report.would_create_rows?.length ?? 0) < this.cap) {
      this.report.would_create_rows?.push({
        row: planned.row,
        key: planned.key,
        title: planned.input.title,
        status: planned.input.status ?? 'todo',
        sprint: planned.sprint?.name ?? null,
      });
    }
    this.issues.set(planned.key, { id: 0, sprintId });
    await this.progress();
    return undefined;
  }

  /** Takes one record: maps it, and (unless dry) creates its sprint, labels and issue, with its comments. */
  async take(r: ImportRecord): Promise<number | undefined> {
    // A run stops at its deadline only once it has created something: each run makes progress.
    // A dry run writes nothing and never stops (reading and mapping 10,000 rows takes about a second).
    const { deadline, dryRun } = this.options;
    if (deadline !== undefined && !dryRun && this.report.created + this.waiting.size > 0 && Date.now() > deadline) {
      await this.flush();
      throw new ImportInterrupted(this.report);
    }
    this.report.rows += 1;
    if ('error' in r) {
      this.reject(r.row, '', [r.error]);
      return undefined;
    }
    await this.ensureState(r.status);
    const planned = planRecord(this.withCustomValues(r), this.mapping, this.states);
    if (!planned.ok) {
      this.reject(planned.row, planned.key, planned.errors);
      return undefined;
    }
    const { key, row } = planned;
    const before = this.imported.get(key) ?? (r.legacyKey ? this.imported.get(r.legacyKey) : undefined);
    const fate = rowFate(key, this.seen, before, this.options.run);
    if (fate === 'repeated') {
      this.reject(row, key, [repeatedKey(key)]);
      return undefined;
    }
    this.seen.add(key);
    if (r.id) this.idToKey.set(r.id, key);
    if (planned.parentKey) this.parentLinks.push({ row, key, parentKey: planned.parentKey });
    for (const l of r.links ?? []) this.links.push({ row, key, type: l.type, other: l.key });
    if (before && fate === 'taken') return this.takenBefore(planned, before);
    return this.takeOwn(r, planned, before);
  }

  /** A record this import takes: reported, then created (unless an earlier run of it created it, `before`). */
  private async takeOwn(r: IssueRecord, planned: Planned, before: ImportedIssue | undefined) {
    const { key, row } = planned;
    const { warnings, unknown, assigneeId, authorId, comments } = peopleOf(r, planned, this.accounts, this.caller.accountId);
    this.noteLogin(assigneeId, r.assignee);
    if (planned.reporterEmail && this.accounts.has(planned.reporterEmail)) this.noteLogin(authorId, r.reporter);
    for (const person of unknown) count(this.unknownPeople, person);
    if (isUnmapped(r.status, this.mapping, this.states)) count(this.unmapped, r.status);
    if (r.sprintHistory?.length && this.report.sprint_history.length < this.cap)
      this.report.sprint_history.push({ row, key, sprints: r.sprintHistory });
    if (planned.attachments.length > 0 && this.report.attachment_links.length < this.cap)
      this.report.attachment_links.push({ row, key, links: planned.attachments });
    const labels = (planned.input.labels ?? []).map(String);
    if (before) {
      // An earlier run of this import (a job continued past its deadline) created it: reported as this
      // import's, as that run did, and not created again.
      this.tookBefore(key, before);
      this.madeEarlier.add(key);
      await this.labelsFor(labels, warnings);
      this.warn(row, key, warnings);
      if (!this.options.dryRun) await this.writeComments({ issueId: before.issueId, sprintId: before.sprintId }, comments, true);
      return undefined;
    }
    const sprintId = r.sprintId !== undefined ? r.sprintId : planned.sprint ? await this.sprintFor(planned.sprint.name) : null;
    const kept = await this.labelsFor(labels, warnings);
    this.warn(row, key, warnings);
    if (this.options.dryRun) return this.wouldCreate(planned, sprintId, comments.length);
    const create: PendingCreate = {
      row,
      key,
      input: { ...planned.input, labels: kept, ...(assigneeId === undefined ? {} : { assignee_id: assigneeId }) },
      sprintId: sprintId ?? null,
      parentKey: planned.parentKey,
      times: planned.times,
      exact: r.exact,
      authorId,
      comments,
    };
    if (!this.batched) return this.createOne(create);
    await this.enqueue(create);
    return undefined;
  }

  /** What an issue's import writes with it, as `createIssue` takes it. */
  private importedIssue(c: PendingCreate, firstCommentId: number): IssueImport {
    const now = new Date().toISOString();
    const withIssue = c.comments.slice(0, COMMENTS_WITH_ISSUE);
    const exact = c.exact;
    return {
      items: (created) => this.createdItems(c.key, created, withIssue, firstCommentId, now),
      created_at: c.times.created_at,
      updated_at: c.times.updated_at ?? c.times.created_at,
      ...(exact
        ? { started_at: exact.started_at, completed_at: exact.completed_at, history: false }
        : c.times.completed_at !== undefined
          ? { completed_at: c.times.completed_at }
          : {}),
      source_key: exact ? exact.sourceKey : c.key,
      number: this.kept.get(c.key),
      author_id: c.authorId,
      ...(exact && { watcherIds: this.watchersOf(exact.watcherEmails) }),
      activityCount: 1,
      commentsCount: withIssue.length,
    };
  }

  /** The accounts of these e-mail addresses here, ascending; those without one are left out. */
  private watchersOf(emails: string[]): number[] {
    const ids = emails.flatMap((email) => this.accounts.get(email.toLowerCase())?.id ?? []);
    return [...new Set(ids)].sort((a, b) => a - b);
  }

  /** An issue written: counted, remembered for parents and relations, its comments past the first written. */
  private async created(c: PendingCreate, issue: { id: number; sprintId: number | null; number: string; updatedAt: string }) {
    this.report.created += 1;
    this.report.comments += Math.min(c.comments.length, COMMENTS_WITH_ISSUE);
    this.createdNow.add(c.key);
    this.issues.set(c.key, { id: issue.id, sprintId: issue.sprintId, number: issue.number, updatedAt: issue.updatedAt });
    this.report.keys[c.key] = issue.number;
    if (this.report.issues) this.report.issues[c.key] = issue.id;
    await this.writeComments({ issueId: issue.id, sprintId: issue.sprintId }, c.comments, false);
  }

  /** A create that did not happen: imported meanwhile by another run, or refused (the row is reported). */
  private notCreated(c: PendingCreate, err: unknown): void {
    if (isRefused(err, importRefusals.imported)) {
      this.report.already_imported += 1;
      return;
    }
    if (err instanceof ValidationError) {
      this.reject(c.row, c.key, err.errors);
      return;
    }
    throw err;
  }

  /**
   * Creates one issue on its own. A parent met before (created by this run, or imported before) is
   * given at once; others are linked once every record is in (`finish`).
   */
  private async createOne(c: PendingCreate): Promise<number | undefined> {
    const parentId = c.parentKey ? this.knownIssue(c.parentKey)?.id : undefined;
    const withIssue = Math.min(c.comments.length, COMMENTS_WITH_ISSUE);
    const firstCommentId = withIssue > 0 ? (await advance(this.caller.orgId, { comment: withIssue })).comment - withIssue + 1 : 0;
    const imported = this.importedIssue(c, firstCommentId);
    const at = { projectId: this.options.projectId, sprintId: c.sprintId };
    try {
      let issue;
      try {
        issue = await createIssue(this.caller, at, { ...c.input, ...(parentId ? { parent_id: parentId } : {}) }, imported);
        if (parentId) this.linkedAtCreate.add(c.key);
      } catch (err) {
        // The parent refused it (full, too deep): created without, the link is tried (and reported) at the end.
        if (!(parentId && err instanceof ValidationError)) throw err;
        issue = await createIssue(this.caller, at, c.input, imported);
      }
      await this.created(c, {
        id: issue.id,
        sprintId: issue.sprint_id,
        number: issue.issue_number,
        updatedAt: issue.updated_at,
      });
      await this.progress();
      return issue.id;
    } catch (err) {
      this.notCreated(c, err);
      return undefined;
    }
  }

  /**
   * Puts a create in the queue; a full queue is written. A record whose parent waits in the same
   * queue is written in the step after its parent's (`createBatch`); one whose parent is being
   * written waits for that write.
   */
  private async enqueue(c: PendingCreate): Promise<void> {
    if (c.parentKey) {
      const parentKey = this.waiting.has(c.parentKey) ? c.parentKey : (this.idToKey.get(c.parentKey) ?? c.parentKey);
      await this.writing.get(parentKey);
    }
    this.queue.push(c);
    this.waiting.add(c.key);
    if (this.queue.length >= IMPORT_BATCH) await this.flush();
  }

  /** Writes what waits in the queue. */
  private async flush(): Promise<void> {
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    const written = this.createBatch(batch);
    for (const c of batch) {
      this.waiting.delete(c.key);
      this.writing.set(c.key, written);
    }
    try {
      await written;
    } finally {
      for (const c of batch) this.writing.delete(c.key);
    }
  }

  /**
   * Creates the issues of one batch together (lib/services/issues.ts: `createIssuesTogether`): the
   * comment ids of all their first comments and their slots (ids, numbers, places, in file order)
   * in one step, then the writes in as few steps as their parents allow: first the records whose
   * parent is not in the batch, then those whose parent was written in the step before, and so
   * on (given their parent at once, by id). Each step writes each list's issues in as few
   * transactions as DynamoDB's limits allow; the places were taken in file order, so each list
   * reads in the file's order whatever the step that wrote an issue.
   */
  private async createBatch(batch: PendingCreate[]): Promise<void> {
    const counts = batch.map((c) => Math.min(c.comments.length, COMMENTS_WITH_ISSUE));
    const total = counts.reduce((a, b) => a + b, 0);
    const kept = batch.map((c) => ({ imported: { number: this.kept.get(c.key) } }));
    const [comments, reserved] = await Promise.all([
      total > 0 ? advance(this.caller.orgId, { comment: total }) : undefined,
      reserveIssues(this.caller, this.options.projectId, kept),
    ]);
    let next = comments ? comments.comment - total + 1 : 0;
    const firstComment = counts.map((n) => {
      const first = next;
      next += n;
      return first;
    });
    for (const step of parentSteps(batch, (key) => this.idToKey.get(key))) {
      const creates = step.map((i) => {
        const c = batch[i]!;
        const parentId = c.parentKey ? this.knownIssue(c.parentKey)?.id : undefined;
        const imported = this.importedIssue(c, firstComment[i]!);
        return { sprintId: c.sprintId, input: { ...c.input, ...(parentId ? { parent_id: parentId } : {}) }, imported };
      });
      const outcomes = await createIssuesTogether(this.caller, this.options.projectId, creates, reservedShare(reserved, step));
      // What was written is counted before a failure of the rest is thrown: the report stays exact.
      let failure: { error: unknown } | undefined;
      for (const [n, i] of step.entries()) {
        const c = batch[i]!;
        const outcome = outcomes[n]!;
        if (outcome.ok) {
          if (outcome.parentGiven) this.linkedAtCreate.add(c.key);
          await this.created(c, outcome);
          continue;
        }
        try {
          this.notCreated(c, outcome.error);
        } catch (err) {
          failure ??= { error: err };
        }
      }
      if (failure) throw failure.error;
    }
    await this.progress();
  }

  /** What an issue's create transaction writes beside it: its source key's record, its `issue.imported` entry, its first comments. */
  private createdItems(
    key: string,
    created: { id: number; sprintId: number | null; number: string },
    comments: { body: string; at?: string | undefined; authorId: number }[],
    firstCommentId: number,
    now: string,
  ): GuardedItem[] {
    const { orgId } = this.caller;
    const { projectId } = this.options;
    const sequence = importedSequences.imported;
    return [
      importedIssueRecord(orgId, projectId, this.source, key, created, this.options.run),
      activityPut({
        orgId,
        projectId,
        owner: { issueId: created.id },
        sequence,
        activity: {
          id: sequence,
          event: 'issue.imported',
          actor_id: this.caller.accountId,
          at: now,
          issue_id: created.id,
          sprint_id: created.sprintId,
          comment_id: null,
          changes: [{ field: 'source_key', to: key }],
        },
      }),
      ...comments.flatMap(
        (c, i) =>
          newComment(
            orgId,
            firstCommentId + i,
            { projectId, sprintId: created.sprintId, issueId: created.id },
            { body: c.body, authorId: c.authorId, authorName: this.nameOf(c.authorId), created_at: c.at },
          ).items,
      ),
    ];
  }

  /**
   * The comments past the first COMMENTS_WITH_ISSUE (written with the issue), each with the record
   * of its key, refused if present: those an earlier run wrote (known, or refused) are not again.
   */
  private async writeComments(
    issue: { issueId: number; sprintId: number | null },
    comments: { key: string; body: string; at?: string | undefined; authorId: number }[],
    before: boolean,
  ): Promise<void> {
    for (const c of comments.slice(COMMENTS_WITH_ISSUE)) {
      try {
        await this.importComment(c.key, issue, {
          body: c.body,
          authorId: c.authorId,
          authorName: this.nameOf(c.authorId),
          created_at: c.at,
        });
      } catch (err) {
        // The issue moved or went since it was imported: its comments stay as they are.
        if (before && err instanceof NotFoundError) return;
        throw err;
      }
    }
  }

  /**
   * Writes a comment of the source once: with the record of its key `key`, refused if present.
   * Its id here (undefined: dry run); a comment an earlier run wrote is not written again.
   */
  async importComment(
    key: string,
    issue: { issueId: number; sprintId: number | null },
    fields: CommentFields,
  ): Promise<number | undefined> {
    const known = this.commentsBefore.get(key);
    if (known !== undefined) return known;
    if (this.options.dryRun) {
      this.report.would_create_comments = (this.report.would_create_comments ?? 0) + 1;
      return undefined;
    }
    const { orgId } = this.caller;
    const { projectId } = this.options;
    try {
      const written = await createImportedComment(
        orgId,
        { projectId, sprintId: issue.sprintId, issueId: issue.issueId },
        fields,
        (id) => [importedCommentRecord(orgId, projectId, this.source, key, id)],
      );
      this.commentsBefore.set(key, written.id);
      this.report.comments += 1;
      return written.id;
    } catch (err) {
      // Written meanwhile by another run: found next time.
      if (isRefused(err, importRefusals.imported)) return undefined;
      throw err;
    }
  }

  /** Reports progress every `progressEvery` rows (as written: a batch reports once it is in). */
  private async progress() {
    const every = this.options.progressEvery ?? 100;
    if (!this.options.onProgress || this.report.rows - this.progressAt < every) return;
    this.progressAt = this.report.rows - (this.report.rows % every);
    await this.options.onProgress(this.report);
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
        warnings.push(`Labels "${name}" left out: ${err.errors.join('; ')}`);
      }
    }
    return kept;
  }

  /**
   * A state for a source status the project has none of, when the mapping puts it in a category but
   * it is not that category's own name (`In Review` -> a state "In Review" in `in_progress`; `To Do`
   * goes to the category's first state): created once, however many rows, and listed in the report.
   * One that cannot be made (the project's 50 states) leaves its issues in the category, said once.
   */
  private ensureState(status: string): Promise<void> {
    const state = stateToMake(status, this.mapping, this.states);
    if (!state) return Promise.resolve();
    const { name, key, category } = state;
    let pending = this.pendingStates.get(key);
    if (!pending) {
      pending = (async () => {
        if (!this.options.dryRun) {
          try {
            await createState(this.caller, this.options.projectId, { name, category });
          } catch (err) {
            if (!(err instanceof ValidationError)) throw err;
            // Made meanwhile by another run under another spelling, or no room: the project says which.
            const now = await listStates(this.caller, this.options.projectId);
            if (!now.some((s) => s.status === key)) {
              const left = `Status "${name}" left in ${category}: ${err.errors.join('; ')}`;
              if (this.report.warnings.length < this.cap) this.report.warnings.push({ row: 0, key: '', warnings: [left] });
              return;
            }
          }
        }
        this.states.set(key, category);
        this.report.created_states.push({ name, category });
      })();
      this.pendingStates.set(key, pending);
    }
    return pending;
  }

  /** The id of the catalogue's label of that name, created (with the colour and description given) if missing, once. */
  ensureLabel(
    name: string,
    details: { color?: unknown; description?: unknown; times?: { created_at: string; updated_at: string } } = {},
  ): Promise<number> {
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
              await createLabel(
                this.caller,
                this.options.projectId,
                { name, ...(color ? { color } : {}), ...(description ? { description } : {}) },
                details.times,
              )
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
  private knownIssue(ref: string): { id: number; sprintId: number | null; number?: string } | undefined {
    const found = this.issues.get(ref) ?? this.issues.get(this.idToKey.get(ref) ?? '');
    return found && found.id > 0 ? found : undefined;
  }

  /** The issue imported (now or before) from a source key. */
  issueOf(key: string): { id: number; sprintId: number | null; number?: string } | undefined {
    return this.issues.get(key);
  }

  /**
   * A GitHub person found among the accounts: their login, which becomes the account's handle at the
   * end of the import if it has none (docs/notifications.md). Jira names people by display name or id, not handle.
   */
  private noteLogin(accountId: number | undefined, person: { id?: string | undefined } | undefined) {
    const login = person?.id?.trim();
    if (this.source === 'github' && accountId !== undefined && login) this.logins.set(accountId, login);
  }

  /** Writes what waits in the queue, links parents (by source key, or by Jira issue id) and relations, then closes the report. */
  async finish(): Promise<ImportReport> {
    await this.flush();
    await this.linkParents();
    await this.linkRelations();
    if (!this.options.dryRun) await adoptHandles(this.caller.orgId, this.logins);
    this.closeReport();
    if (this.options.onProgress) await this.options.onProgress(this.report);
    return this.report;
  }

  private async linkParents(): Promise<void> {
    // Children imported before (a second run, a job's later run) are read back a page at a time,
    // in one BatchGetItem per page, not one by one.
    const stored = new Map<number, IssueItem>();
    for (const [i, link] of this.parentLinks.entries()) {
      if (i % STORED_PAGE === 0 && !this.options.dryRun) {
        stored.clear();
        const ids = this.parentLinks
          .slice(i, i + STORED_PAGE)
          .filter((l) => !this.linkedAtCreate.has(l.key) && !this.createdNow.has(l.key))
          .map((l) => this.issues.get(l.key)?.id)
          .filter((id): id is number => id !== undefined && id > 0);
        for (const item of await issuesById(this.caller.orgId, this.options.projectId, ids)) stored.set(item.id, item);
      }
      await this.linkParent(link, stored);
    }
  }

  /** Links one child to its parent (`stored`: the children imported before, as read back). */
  private async linkParent(link: { row: number; key: string; parentKey: string }, storedItems: Map<number, IssueItem>) {
    if (this.linkedAtCreate.has(link.key)) {
      this.report.parents.linked += 1;
      return;
    }
    const child = this.issues.get(link.key);
    const parentKey = this.issues.has(link.parentKey) ? link.parentKey : this.idToKey.get(link.parentKey);
    const parent = parentKey === undefined ? undefined : this.issues.get(parentKey);
    const unresolved = (reason: string) => {
      if (this.report.parents.unresolved.length < this.cap)
        this.report.parents.unresolved.push({ row: link.row, key: link.key, parent_key: link.parentKey, reason });
    };
    if (!child) return;
    if (!parent) {
      unresolved('the parent is not in the file');
      return;
    }
    if (this.options.dryRun) {
      this.report.parents.linked += 1;
      return;
    }
    try {
      // Imported before (a second run, a job's later run): linked then, unless it was not.
      const stored = this.createdNow.has(link.key) ? undefined : storedItems.get(child.id);
      if (stored && issueItem.field(stored, 'parentId') === parent.id) {
        // Linked by this import's earlier run (its own), or by another import.
        if (this.madeEarlier.has(link.key)) this.report.parents.linked += 1;
        else this.report.parents.already_linked += 1;
        return;
      }
      const sprintId = stored ? issueItem.field(stored, 'sprintId') : child.sprintId;
      // The link keeps the child's update time: the source's.
      const at = stored ? issueItem.field(stored, 'updatedAt') : child.updatedAt;
      await updateIssue(this.caller, { projectId: this.options.projectId, sprintId }, child.id, { parent_id: parent.id }, { at });
      this.report.parents.linked += 1;
    } catch (err) {
      if (err instanceof ValidationError || err instanceof NotFoundError) unresolved(err.message);
      else throw err;
    }
  }

  /**
   * Relates the issues the file's links name (Jira's issue links), each relation once whichever
   * of its two rows names it; a relation already there (an earlier import's) counts as already linked.
   */
  private async linkRelations(): Promise<void> {
    const done = new Set<string>();
    for (const link of this.links) {
      const from = this.issues.get(link.key);
      const to = this.issues.get(link.other);
      const unresolved = (reason: string) => {
        if (this.report.relations.unresolved.length < this.cap)
          this.report.relations.unresolved.push({ row: link.row, key: link.key, type: link.type, other_key: link.other, reason });
      };
      if (!from) continue;
      if (!to) {
        unresolved('the other issue is not in the file');
        continue;
      }
      const { id, from: a, kind, to: b } = relationOnce(link);
      if (done.has(id)) continue;
      done.add(id);
      if (this.options.dryRun) {
        this.report.relations.linked += 1;
        continue;
      }
      const first = this.issues.get(a);
      const second = this.issues.get(b);
      if (!first?.number || !second?.number) {
        unresolved('the issue was imported before its number was recorded');
        continue;
      }
      const outcome = await relateOnce(this.caller, first.number, second.number, kind);
      if (outcome === 'linked') this.report.relations.linked += 1;
      else if (outcome === 'already') this.report.relations.already_linked += 1;
      else unresolved(outcome.refused);
    }
  }

  /** The report as it stands, its lists in order (also of an import that failed part-way). */
  closeReport(): ImportReport {
    return closeReport(this.report, this.unknownPeople, this.unmapped, this.mapping.defaultStatus);
  }
}

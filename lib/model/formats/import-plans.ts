import type * as z from 'zod/mini';
import type {
  ExportImportReport as ExportImportReportSchema,
  ImportReport as ImportReportSchema,
} from '../../schemas/imports.ts';
import type { IssueStatus } from '../../schemas/issues.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import { statusKey } from '../../vocabulary/workflow.ts';
import { categorySynonyms, fold, type ImportMapping, type PlannedRecord, type SourceRecord } from './sources.ts';

/**
 * The decisions an import makes about each record, apart from its writes: which rows are refused
 * and why, which are taken before, which states are made, who the people are, which relations are
 * one, and what the report counts. Pure, so a dry run and a run decide alike.
 */

/** What an import did (or, dry, would do): a project's report. Lists are capped; counts are exact. */
export type ImportReport = z.infer<typeof ImportReportSchema>;
/** What an export file's import did: the organisation's report, a project's report under each prefix. */
export type ExportImportReport = z.infer<typeof ExportImportReportSchema>;

/** A record the mapping takes. */
export type Planned = Extract<PlannedRecord, { ok: true }>;

/**
 * What becomes of a record of key `key`: `repeated` (its key came before in the file: refused),
 * `taken` (another import took it: counted only), `ours` (an earlier run of this import, `run`,
 * created it: reported as this import's, not created again), or `new`.
 */
export function rowFate(
  key: string,
  seen: ReadonlySet<string>,
  before: { run?: string | undefined } | undefined,
  run: string | undefined,
): 'repeated' | 'taken' | 'ours' | 'new' {
  if (seen.has(key)) return 'repeated';
  if (!before) return 'new';
  return run !== undefined && before.run === run ? 'ours' : 'taken';
}

/** The refusal of a key that appears again in the file. */
export const repeatedKey = (key: string) =>
  `the issue key ${key} appears more than once in the file: only its first row is imported`;

/**
 * The state to make for a source status, or undefined: one the mapping puts in a category, under a
 * name that is not that category's own (`In Review` -> a state "In Review" in `in_progress`; `To Do`
 * goes to the category's first state), and that the project (`states`, by status key) lacks.
 */
export function stateToMake(
  status: string,
  mapping: ImportMapping,
  states: ReadonlyMap<string, IssueStatus>,
): { name: string; key: string; category: IssueStatus } | undefined {
  const name = status.trim();
  const key = statusKey(name);
  const category = mapping.statuses[fold(name)];
  if (!key || !category || states.has(key) || categorySynonyms[fold(name)]) return undefined;
  return { name, key, category };
}

/** Whether a source status is neither in the mapping nor a state of the project (it is counted as unmapped). */
export const isUnmapped = (status: string, mapping: ImportMapping, states: ReadonlyMap<string, IssueStatus>) =>
  !mapping.statuses[fold(status)] && !states.has(statusKey(status));

/** The organisation's accounts by e-mail. */
export type Accounts = ReadonlyMap<string, { id: number; name: string; role?: string }>;

/** The account an import acts as: `actorId`'s, else the organisation's first admin; undefined if there is none. */
export function importActor(accounts: Accounts, actorId: number | undefined): { id: number; name: string } | undefined {
  const all = [...accounts.values()];
  if (actorId !== undefined) return all.find((a) => a.id === actorId);
  return all.filter((a) => a.role === 'admin').sort((a, b) => a.id - b.id)[0];
}

/** A planned comment with its author here. */
export type AuthoredComment = Planned['comments'][number] & { authorId: number };

/**
 * A record's people as accounts here (by e-mail): its assignee (none if unknown), its author and
 * its comments' authors (the importer if unknown). Each unknown person is a warning, named in
 * `unknown` once per mention.
 */
export function peopleOf(record: SourceRecord, planned: Planned, accounts: Accounts, importerId: number) {
  const warnings = [...planned.warnings];
  const unknown: string[] = [];
  const account = (email: string | undefined, label: string | undefined, what: (who: string) => string) => {
    const id = email ? accounts.get(email)?.id : undefined;
    const person = email ?? label;
    if (person && id === undefined) {
      unknown.push(person);
      warnings.push(what(person));
    }
    return id;
  };
  const assigneeId = account(
    planned.assigneeEmail,
    planned.unknownPerson,
    (who) => `${record.columns?.assignee ?? 'Assignee'} "${who}" has no account here: left unassigned`,
  );
  const authorId =
    account(
      planned.reporterEmail,
      planned.unknownReporter,
      (who) => `${record.columns?.reporter ?? 'Reporter'} "${who}" has no account here: the importer is its author`,
    ) ?? importerId;
  const comments: AuthoredComment[] = planned.comments.map((c) => ({
    ...c,
    authorId:
      account(c.authorEmail, c.unknownAuthor, (who) => `Comment by "${who}": no account here, written as the importer's`) ??
      importerId,
  }));
  return { warnings, unknown, assigneeId, authorId, comments };
}

/** A record's comments with their authors here, without warnings (a row an earlier import took). */
export const commentAuthors = (planned: Planned, accounts: Accounts, importerId: number): AuthoredComment[] =>
  planned.comments.map((c) => ({ ...c, authorId: (c.authorEmail && accounts.get(c.authorEmail)?.id) || importerId }));

/**
 * One relation, whichever of its two issues names it: `blocks`/`blocked_by` and
 * `duplicates`/`duplicated_by` are one relation seen from either side, `relates_to` likewise.
 * `id` is the same from both sides.
 */
export function relationOnce(link: { key: string; type: RelationType; other: string }) {
  const forward = link.type === 'blocked_by' || link.type === 'duplicated_by';
  const [from, to] = forward ? [link.other, link.key] : [link.key, link.other];
  const kind: RelationType = link.type === 'blocked_by' ? 'blocks' : link.type === 'duplicated_by' ? 'duplicates' : link.type;
  const id = kind === 'relates_to' ? [from, to].sort().join(` ${kind} `) : `${from} ${kind} ${to}`;
  return { id, from, kind, to };
}

/**
 * The records of a batch in the steps they are written in: a record whose parent (by source key,
 * or by Jira issue id through `keyOf`) is in the batch goes in the step after its parent's; each
 * step lists indexes of `batch` in file order.
 */
export function parentSteps(
  batch: readonly { key: string; parentKey?: string | undefined }[],
  keyOf: (ref: string) => string | undefined,
): number[][] {
  const at = new Map(batch.map((c, i) => [c.key, i]));
  const levels: number[] = [];
  const levelOf = (i: number, depth = 0): number => {
    const known = levels[i];
    if (known !== undefined) return known;
    const ref = batch[i]!.parentKey;
    const parent = ref === undefined ? undefined : (at.get(ref) ?? at.get(keyOf(ref) ?? ''));
    // A parent later in the file, or a cycle (refused at the link): not waited for.
    const level = parent === undefined || parent >= i || depth > batch.length ? 0 : levelOf(parent, depth + 1) + 1;
    levels[i] = level;
    return level;
  };
  const steps: number[][] = [];
  batch.forEach((_, i) => (steps[levelOf(i)] ??= []).push(i));
  return steps.filter((s) => s.length > 0);
}

/** A new project's report: nothing done yet. */
export function emptyReport(options: {
  format: string;
  projectId: number;
  dryRun?: boolean | undefined;
  keepNumbers?: boolean | undefined;
  keepIds?: boolean | undefined;
}): ImportReport {
  return {
    format: options.format,
    project_id: options.projectId,
    dry_run: Boolean(options.dryRun),
    keep_numbers: Boolean(options.keepNumbers),
    rows: 0,
    created: 0,
    already_imported: 0,
    rejected: 0,
    comments: 0,
    created_sprints: [],
    created_labels: [],
    created_states: [],
    unknown_people: [],
    unmapped_statuses: [],
    unknown_columns: [],
    rejected_rows: [],
    warnings: [],
    sprint_history: [],
    attachment_links: [],
    parents: { linked: 0, already_linked: 0, unresolved: [] },
    relations: { linked: 0, already_linked: 0, unresolved: [] },
    keys: {},
    ...(options.dryRun ? { would_create: 0, would_create_comments: 0, would_create_rows: [] } : {}),
    ...(options.keepIds ? { issues: {} } : {}),
  };
}

/**
 * The report's lists in order, as a report is answered (also of an import that failed part-way):
 * rows in file order, people by name, unmapped statuses as met with what they became.
 */
export function closeReport(
  report: ImportReport,
  unknownPeople: ReadonlyMap<string, number>,
  unmapped: ReadonlyMap<string, number>,
  defaultStatus: string,
): ImportReport {
  const byRow = (a: { row: number }, b: { row: number }) => a.row - b.row;
  report.would_create_rows?.sort(byRow);
  report.rejected_rows.sort(byRow);
  report.warnings.sort(byRow);
  report.sprint_history.sort(byRow);
  report.attachment_links.sort(byRow);
  report.unknown_people = [...unknownPeople].map(([name, rows]) => ({ name, rows })).sort((a, b) => (a.name < b.name ? -1 : 1));
  report.unmapped_statuses = [...unmapped].map(([status, rows]) => ({ status, rows, imported_as: defaultStatus }));
  return report;
}

/** Either report, as a job counts it: rows read, issues created, issues a dry run would create, rows rejected. */
export function reportTotals(r: ImportReport | ExportImportReport) {
  if (!('projects' in r)) return { rows: r.rows, created: r.created, wouldCreate: r.would_create ?? 0, rejected: r.rejected };
  const projects = Object.values(r.projects);
  const sum = (of: (p: ImportReport) => number) => projects.reduce((total, p) => total + of(p), 0);
  return {
    rows: r.lines,
    created: sum((p) => p.created),
    wouldCreate: sum((p) => p.would_create ?? 0),
    rejected: sum((p) => p.rejected),
  };
}

import { ValidationError } from '../../vocabulary/errors.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import {
  defaultStateColors,
  isStateCategory,
  requiredFields,
  stateCategories,
  stateLimits,
  statusKey,
  type RequiredField,
  type StateCategory,
} from '../../vocabulary/workflow.ts';
import type { WorkflowState } from '../workflow.ts';
import type { SourceRecord } from './sources.ts';

/**
 * The one record stream of an import. Every source becomes issue records: a Jira row, a GitHub
 * issue object (./sources.ts), or an export file's issue line (`exportIssueRecord`). A record the
 * reader could not take is an error of its row. The import writes any such stream the same way.
 */

/** What an export file's issue keeps as it was. */
export interface ExactIssue {
  /** Its own `source_key` (null: an issue created there), shown as it was. */
  sourceKey: string | null;
  started_at: string | null;
  completed_at: string | null;
  /** Who watched it, by e-mail (those without an account here are left out). */
  watcherEmails: string[];
}

/** An issue of any source, as the import takes it. */
export type IssueRecord = SourceRecord & {
  /** The source's own id (Jira's `Issue id`, an export's old issue id): a parent may be named by it. */
  id?: string | undefined;
  exact?: ExactIssue | undefined;
};

/** One record of an import's stream: an issue of any source, or why its row is none. */
export type ImportRecord = IssueRecord | { row: number; error: string };

/** A line of an export file, parsed. */
export type Line = Record<string, unknown> & { kind?: string };

export const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
export const strOrNull = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * An export file's issue line (line `n`) as a record of the stream: keyed by its number there,
 * its sprint by its new id (`sprintIds`: old id -> new), its parent by its old id, its people by
 * e-mail, and what it keeps exactly.
 */
export function exportIssueRecord(n: number, line: Line, sprintIds: Readonly<Record<string, number>>): ImportRecord {
  const labels = Array.isArray(line.labels) ? line.labels.map((l) => String((l as { name: unknown }).name)) : [];
  const oldSprint = line.sprint_id === null || line.sprint_id === undefined ? null : String(line.sprint_id);
  return {
    row: n,
    key: String(line.issue_number),
    id: String(line.id),
    title: String(line.title),
    description: strOrNull(line.description),
    status: String(line.status),
    type: String(line.type),
    priority: String(line.priority),
    assignee: str(line.assignee_email) ? { name: str(line.assignee_email) } : undefined,
    reporter: str(line.author_email) ? { name: str(line.author_email) } : undefined,
    created_at: String(line.created_at),
    updated_at: String(line.updated_at),
    due_date: str(line.due_date),
    labels,
    sprintId: oldSprint === null ? null : (sprintIds[oldSprint] ?? null),
    // Parents are named by their old id; the import resolves them through `id`.
    parent_key: typeof line.parent_id === 'number' ? String(line.parent_id) : undefined,
    story_points: typeof line.story_points === 'number' ? line.story_points : undefined,
    // By key, as the issue answered them (options by name): the project's fields are made first.
    custom_fields:
      typeof line.custom_fields === 'object' && line.custom_fields !== null && !Array.isArray(line.custom_fields)
        ? (line.custom_fields as Record<string, unknown>)
        : undefined,
    exact: {
      sourceKey: strOrNull(line.source_key),
      started_at: strOrNull(line.started_at),
      completed_at: strOrNull(line.completed_at),
      watcherEmails: Array.isArray(line.watcher_emails)
        ? line.watcher_emails.filter((e): e is string => typeof e === 'string')
        : [],
    },
  };
}

/** A relation an export file's issue line names, to write once every project is in. */
export interface ExportRelation {
  line: number;
  from: string;
  to: string;
  type: RelationType;
  createdAt?: string | undefined;
}

/**
 * The relations of an issue line (line `n`, issue `key`) to write. Each relation is on both of
 * its issues' lines: it is written once, from the side that names it forwards (`blocks`,
 * `duplicates`; `relates_to` from the lower key).
 */
export function exportRelations(n: number, line: Line, key: string): ExportRelation[] {
  const relations: ExportRelation[] = [];
  for (const r of (Array.isArray(line.relations) ? line.relations : []) as Record<string, unknown>[]) {
    const type = String(r.type) as RelationType;
    if (type === 'relates_to' ? String(r.issue_number) < key : !['blocks', 'duplicates'].includes(type)) continue;
    relations.push({ line: n, from: key, to: String(r.issue_number), type, createdAt: str(r.created_at) });
  }
  return relations;
}

/**
 * A project line's workflow (an export's `states`, as GET …/states answers them), kept as it was:
 * the same ids, names, categories, order, limits and rules, so that its issues' `state_id` and
 * `status` name the same states. Absent (an export made before workflows): the defaults. One that
 * is not a workflow (a category with no state, an id or a name twice, an unknown category) is
 * refused with the line.
 */
export function exportedStates(value: unknown): WorkflowState[] | undefined {
  if (value === undefined || value === null) return undefined;
  const refuse = (why: string): never => {
    throw new ValidationError([`states: ${why}`]);
  };
  if (!Array.isArray(value) || value.length === 0 || value.length > stateLimits.perProject)
    refuse(`must be a list of 1 to ${stateLimits.perProject} states`);
  const states = (value as Record<string, unknown>[]).map((s): WorkflowState => {
    const id = Number(s?.id);
    if (!Number.isSafeInteger(id) || id < 1) refuse('each state needs a positive integer id');
    if (typeof s.name !== 'string' || statusKey(s.name) === '') refuse(`state ${id} needs a name`);
    if (!isStateCategory(s.category)) refuse(`state ${id}: unknown category '${String(s.category)}'`);
    const ids = (v: unknown) => (Array.isArray(v) ? v.map(Number).filter(Number.isSafeInteger) : null);
    return {
      id,
      name: String(s.name),
      color: typeof s.color === 'string' ? s.color : defaultStateColors[s.category as StateCategory],
      category: s.category as StateCategory,
      order: Number.isSafeInteger(s.order) ? Number(s.order) : id * 1000,
      wipLimit: Number.isSafeInteger(s.wip_limit) ? Number(s.wip_limit) : null,
      createdAt: typeof s.created_at === 'string' ? s.created_at : new Date().toISOString(),
      updatedAt: typeof s.updated_at === 'string' ? s.updated_at : new Date().toISOString(),
      version: 1,
      allowedNext: ids(s.allowed_next_state_ids),
      requiredFields: Array.isArray(s.required_fields)
        ? (s.required_fields.filter((f) => (requiredFields as readonly unknown[]).includes(f)) as RequiredField[])
        : [],
      refuseBlocked: s.refuse_blocked === true,
    };
  });
  if (new Set(states.map((s) => s.id)).size !== states.length) refuse('an id is there twice');
  if (new Set(states.map((s) => statusKey(s.name))).size !== states.length) refuse('a name is there twice');
  for (const category of stateCategories)
    if (!states.some((s) => s.category === category)) refuse(`no state in the category ${category}`);
  return states;
}

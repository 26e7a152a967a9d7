import { sameStoredValue, storedFromShown, type FieldSet, type StoredValue } from './custom-fields.ts';
import type { Activity } from '../schemas/activity.ts';
import type { Issue, IssueUpdate } from '../schemas/issues.ts';
import type { RelationType } from '../vocabulary/relation-types.ts';

/**
 * What reverting an activity entry does (docs/activity.md: Reverting a change), decided on the entry
 * and on the issue as it is now; pure. An entry is revertible when it is one change of an issue's
 * own fields, list, labels or relations made here (`issue.updated`); it is reverted when every field
 * it changed still holds the value it wrote, by the write a client would make to put the values it
 * replaced back (a PATCH, or a relation's removal or creation), so that everything derived from the
 * issue follows as it follows that write.
 */

type Change = Activity['changes'][number];

/** A relation as an entry records it (`from`/`to` of a `relations` change): as its issue sees it. */
export interface RecordedRelation {
  id: string;
  type: RelationType;
  issue: { id: number; issue_number: string; project_id: number };
}

/** One field that holds another value than the entry wrote, with its value now. */
export interface ChangedSince {
  field: string;
  value: unknown;
}

/** The write that reverts an entry. */
export type RevertWrite =
  | { kind: 'update'; changes: IssueUpdate }
  | { kind: 'unrelate'; relationId: string }
  | { kind: 'relate'; type: RelationType; issueKey: string };

/** Fields an entry records with the value before and after, set back as they were by a PATCH. */
const valueFields = ['title', 'story_points', 'assignee_id', 'priority', 'type', 'due_date', 'parent_id', 'sprint_id'] as const;

/** Fields a change of state records (`status`, the state's name; `state_id`; `status_category`). */
const stateFields = new Set(['status', 'state_id', 'status_category']);

/** Why an entry cannot be reverted, by what it records; undefined when it can be. */
export function notRevertible(
  entry: Pick<Activity, 'event' | 'changes'>,
  kept: {
    /** The entry was written here by the change feed (not restored by an import). */
    recordedHere: boolean;
    /** The description it replaced was kept beside it (entries written since descriptions are kept). */
    description: boolean;
  },
): string | undefined {
  switch (entry.event) {
    case 'issue.updated':
      break;
    case 'issue.created':
    case 'issue.imported':
      return `An entry of the issue's creation (${entry.event}) is not reverted: delete the issue instead`;
    case 'issue.restored':
      return `An entry of the issue's return from the trash (${entry.event}) is not reverted: delete the issue instead`;
    case 'comment.created':
    case 'comment.updated':
    case 'comment.deleted':
      return `A comment's entry (${entry.event}) is not reverted: edit or delete the comment itself`;
    case 'attachment.added':
    case 'attachment.removed':
    case 'attachment.restored':
    case 'attachment.purged':
      return `An attachment's entry (${entry.event}) is not reverted: add or delete the attachment itself`;
    default:
      return `A sprint's entry (${entry.event}) is not reverted`;
  }
  if (!kept.recordedHere) return 'An entry restored by an import records a change made elsewhere: it is not reverted';
  const fields = new Set(entry.changes.map((c) => c.field));
  if (fields.has('description') && !kept.description)
    return 'This change of description was recorded before descriptions were kept (docs/activity.md): it is not reverted; PATCH the description instead';
  if (fields.has('position'))
    return 'A reorder records no place (docs/activity.md): it is not reverted; PATCH `position` instead';
  if (fields.has('relations') && fields.size > 1) return 'An entry that mixes relations with other fields is not reverted';
  const known = [...fields].every(
    (f) =>
      (valueFields as readonly string[]).includes(f) ||
      stateFields.has(f) ||
      ['labels', 'relations', 'description', 'custom_fields'].includes(f),
  );
  if (!known || fields.size === 0) return `An entry of ${[...fields].join(', ') || 'no field'} is not reverted`;
  return undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The label ids an issue carries now. */
const labelIdsOf = (issue: Pick<Issue, 'labels'>) => issue.labels.map((l) => l.id).sort((a, b) => a - b);

/**
 * The write that reverts `entry` (revertible: `notRevertible` said so) on `issue` as it is now with
 * its `relations` (relation id → the relation as the issue sees it), or the fields changed since
 * with their values now: a revert applies whole or not at all.
 */
export function revertOf(
  entry: Pick<Activity, 'changes'>,
  issue: Issue,
  relations: Record<string, RecordedRelation>,
  /** The description the entry replaced, and whether a text is the one it wrote (it keeps a digest). */
  description?: { before: string | null; wrote: (now: string | null) => boolean },
  /** The project's custom fields: an entry records values by field id, the issue shows them by key. */
  fields: FieldSet = [],
): { write: RevertWrite } | { changed: ChangedSince[] } {
  const changed: ChangedSince[] = [];
  const changes: IssueUpdate = {};
  const relation = entry.changes.find((c) => c.field === 'relations');
  if (relation) {
    const added = relation.to as RecordedRelation | null | undefined;
    const removed = relation.from as RecordedRelation | null | undefined;
    if (added) {
      const now = relations[added.id] ?? null;
      if (!now || now.type !== added.type) return { changed: [{ field: 'relations', value: now }] };
      return { write: { kind: 'unrelate', relationId: added.id } };
    }
    if (!removed) return { changed: [] };
    const now = relations[removed.id] ?? null;
    if (now) return { changed: [{ field: 'relations', value: now }] };
    return { write: { kind: 'relate', type: removed.type, issueKey: removed.issue.issue_number } };
  }
  for (const c of entry.changes) {
    if ((valueFields as readonly string[]).includes(c.field)) {
      const field = c.field as (typeof valueFields)[number];
      if (!same(issue[field], c.to)) changed.push({ field, value: issue[field] ?? null });
      else Object.assign(changes, { [field]: c.from ?? null });
    }
  }
  const state = stateChange(entry.changes);
  if (state) {
    if (!same(state.current(issue), state.to)) {
      changed.push({ field: 'status', value: issue.status }, { field: 'state_id', value: issue.state_id });
    } else Object.assign(changes, state.back);
  }
  if (entry.changes.some((c) => c.field === 'description') && description) {
    if (!description.wrote(issue.description)) changed.push({ field: 'description', value: issue.description });
    else changes.description = description.before;
  }
  const labels = entry.changes.find((c) => c.field === 'labels');
  if (labels) {
    const now = labelIdsOf(issue);
    const added = labels.added ?? [];
    const removed = labels.removed ?? [];
    if (!added.every((id) => now.includes(id)) || removed.some((id) => now.includes(id))) {
      changed.push({ field: 'labels', value: now });
    } else {
      changes.labels = [...now.filter((id) => !added.includes(id)), ...removed].sort((a, b) => a - b);
    }
  }
  const values = entry.changes.find((c) => c.field === 'custom_fields');
  if (values) {
    const back = valuesBack(values, issue, fields);
    if ('changed' in back) changed.push(back.changed);
    else changes.custom_fields = back.values;
  }
  return changed.length > 0 ? { changed } : { write: { kind: 'update', changes } };
}

/**
 * The custom fields' values an entry set (by field id), back as they were (by key, as a write
 * takes them: options by id), when the issue still holds what the entry wrote; else the values now.
 * A field deleted since holds nothing the entry wrote.
 */
function valuesBack(
  change: Change,
  issue: Issue,
  fields: FieldSet,
): { changed: ChangedSince } | { values: Record<string, StoredValue | null> } {
  const from = (change.from ?? {}) as Record<string, StoredValue | null>;
  const to = (change.to ?? {}) as Record<string, StoredValue | null>;
  const now = storedFromShown(fields, issue.custom_fields);
  const values: Record<string, StoredValue | null> = {};
  for (const [id, wrote] of Object.entries(to)) {
    const field = fields.find((f) => String(f.id) === id);
    if (!field || !sameStoredValue(now[id], wrote ?? undefined)) {
      return { changed: { field: 'custom_fields', value: issue.custom_fields } };
    }
    values[field.key] = from[id] ?? null;
  }
  return { values };
}

/**
 * A change of state as an entry records it: by the state's id when it names one (what a PATCH
 * sets back), else by its category (an entry written without the project's workflow).
 */
function stateChange(changes: Change[]) {
  const byId = changes.find((c) => c.field === 'state_id');
  if (byId && typeof byId.from === 'number') {
    return { to: byId.to, current: (i: Issue) => i.state_id, back: { state_id: byId.from } };
  }
  const category = changes.find((c) => c.field === 'status_category') ?? changes.find((c) => c.field === 'status');
  if (!category || typeof category.from !== 'string') return undefined;
  return {
    to: category.to,
    current: (i: Issue) => i.status_category,
    back: { status: category.from as IssueUpdate['status'] },
  };
}

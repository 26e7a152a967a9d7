import type { Sprint, SprintReport, SprintStatus } from '../../schemas/sprints.ts';
import { tableName } from '../core/client.ts';
import { alsoIf, attribute, itemKind, type Change, type Condition, type Stored, type UpdateExpressions } from '../core/item.ts';
import { deletionMarker } from '../core/deletions.ts';
import { collections, keys, listKeys } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import { projectItem, type ProjectItem } from './projects.ts';
import { nextId } from '../core/sequences.ts';
import {
  getItem,
  existsCheck,
  putNew,
  addTo,
  batchGet,
  equalsCondition,
  sentFields,
  transact,
  updateResource,
  type GuardedItem,
} from '../core/transactions.ts';
import { storedNumberIs } from '../core/versions.ts';
import { BURNDOWN_PREFIX, burndownChanges, burndownCounter, noCounters, scopeCounterNames } from '../../model/sprint-counters.ts';
import { COPIED, FIELDS, type CompletionPlan, type CountersAtCompletion } from '../../model/completion.ts';
import type { RefusalReason } from '../core/refusals.ts';
import { velocityPut } from './velocity.ts';
import { trashPut } from '../core/trash.ts';
import { organisationOf, trashRetentionOf } from '../organisation/organisation.ts';
import { trashTitle } from '../../model/trash.ts';

/** No completion is carrying issues into the sprint (`receiving`, with `#receiving` and `:zero`). */
const notReceiving = storedNumberIs('#receiving', ':zero', 0);

/** What the domain decides about a sprint's editable fields. */
export interface SprintFields {
  name: string;
  slug: string;
  description: string | null;
  start_date: string | null;
  end_date: string | null;
  sprint_lead_id: number | null;
}

/**
 * The sprint item, declared once (lib/db/core/item.ts): what its answer shows, its counters (their model
 * names are lib/model/sprint-counters.ts's, stored where lib/db/issues/counters.ts says) and its
 * bookkeeping (its list's revision, its activation's snapshot, a completion's plan and what it
 * froze). A day's burndown change is kept under an attribute of its own per day
 * (`burndownStored`), its rank index and board columns under
 * attributes per block and column (lib/model/positions.ts, lib/model/derivations.ts), and what a
 * completion froze under `at_completion_` and the frozen attribute's name (`atCompletion`).
 */
export const sprintItem = itemKind({
  type: 'sprint',
  key: { ...keys.sprint.placement, LSK: listKeys.sprint.placement },
  about: 'sprint (+ issue counters)',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    name: attribute.string('name'),
    slug: attribute.string('slug'),
    description: attribute.nullableString('description'),
    status: attribute.oneOf<SprintStatus, 'status'>('status'),
    startDate: attribute.nullableString('start_date'),
    endDate: attribute.nullableString('end_date'),
    actualEndDate: attribute.nullableString('actual_end_date'),
    sprintLeadId: attribute.nullableNumber('sprint_lead_id'),
    issuesCount: attribute.counter('issues_count'),
    totalStoryPoints: attribute.counter('total_story_points'),
    completedStoryPoints: attribute.counter('completed_story_points'),
    /** Issues not `done`/`cancelled`: completion checks it reached zero. */
    openIssuesCount: attribute.counter('open_issues_count'),
    openStoryPoints: attribute.counter('open_story_points'),
    doneIssuesCount: attribute.counter('done_issues_count'),
    /** Moves in and out since its activation (its report's added and removed scope). */
    addedIssues: attribute.counter('added_issues'),
    addedPoints: attribute.counter('added_points'),
    removedIssues: attribute.counter('removed_issues'),
    removedPoints: attribute.counter('removed_points'),
    /** Bumped by every move that computes a position in this sprint's list (see lib/db/issues/issues.ts). */
    positionsRev: attribute.counter('positions_rev'),
    /** Snapshots written by the activation itself: what it committed to, and its open story points (the burndown's start). */
    committedIssues: attribute.counter('committed_issues'),
    committedPoints: attribute.counter('committed_points'),
    burndownBase: attribute.counter('burndown_base'),
    activatedAt: attribute.laterString('activated_at'),
    activatedOn: attribute.laterString('activated_on'),
    /** Set while `completing`: what its completion decided. */
    completion: attribute.whole<CompletionPlan, 'completion'>('completion'),
    /** Completions carrying issues into this sprint right now: it may not be activated or deleted meanwhile. */
    receiving: attribute.counter('receiving'),
    /** Its own activity entries (activated, completed), counted with them. */
    activityCount: attribute.counter('activity_count'),
    report: {
      stored: 'report' as const,
      read: (v: unknown) => (v as Sprint['report'] | undefined) ?? null,
      write: (v: Sprint['report']) => v,
    },
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});

/**
 * Where a sprint keeps a day's burndown change (lib/model/sprint-counters.ts: `burndownCounter`):
 * an attribute of its own per UTC day, `burndown_YYYYMMDD`, top level so that a write can `ADD` to
 * it without the attribute existing.
 */
export const burndownStored = (counter: string) => `burndown_${counter.slice(BURNDOWN_PREFIX.length).replaceAll('-', '')}`;

/** The model's name of a stored day's burndown change (undefined: the attribute is not one). */
export function burndownNamed(stored: string): string | undefined {
  const m = /^burndown_(\d{4})(\d{2})(\d{2})$/.exec(stored);
  return m ? burndownCounter(`${m[1]}-${m[2]}-${m[3]}`) : undefined;
}

/** A sprint's burndown changes by YYYY-MM-DD, from its stored item. */
export function sprintBurndown(item: object): Map<string, number> {
  const counters: Record<string, number> = {};
  for (const [stored, value] of Object.entries(item)) {
    const named = burndownNamed(stored);
    if (named) counters[named] = Number(value);
  }
  return burndownChanges(counters);
}

/** A stored sprint as read, before it is decoded (`sprintItem`'s attributes under their stored names). */
export type SprintItem = Stored<typeof sprintItem.attributes>;

const stored = sprintItem.stored;

/** The stored name a completion copies a counter or field to when it begins (lib/db/issues/sprint-completion.ts). */
export const atCompletion = (field: (typeof COPIED)[number] | (typeof FIELDS)[number]) => `at_completion_${stored(field)}`;

/**
 * The counters and fields of a sprint a completion freezes (lib/model/completion.ts): as copied
 * when its completion began (`frozen`), or as they stand now.
 */
export function countersAtCompletion(item: object, frozen: boolean): CountersAtCompletion {
  const s = item as Record<string, unknown>;
  const at = (field: (typeof COPIED)[number] | (typeof FIELDS)[number]) => s[frozen ? atCompletion(field) : stored(field)];
  return {
    ...Object.fromEntries(COPIED.map((c) => [c, Number(at(c) ?? 0)])),
    ...Object.fromEntries(FIELDS.map((f) => [f, (at(f) as string | null | undefined) ?? null])),
  } as CountersAtCompletion;
}

/** The sprint and its project, in one consistent BatchGet (the ancestor check of every sprint read). */
export async function getSprintFamily(orgId: number, projectId: number, sprintId: number) {
  const [project, sprint] = await batchGet([keys.project(orgId, projectId), keys.sprint(orgId, projectId, sprintId)]);
  return { project: project as ProjectItem | undefined, sprint: sprint as SprintItem | undefined };
}

/** A sprint to delete with its project and, in the same BatchGetItem, its organisation's trash retention (days). */
export async function getSprintToDelete(orgId: number, projectId: number, sprintId: number) {
  const [project, sprint, org] = await batchGet([
    keys.project(orgId, projectId),
    keys.sprint(orgId, projectId, sprintId),
    keys.org(orgId),
  ]);
  return {
    project: project as ProjectItem | undefined,
    sprint: sprint as SprintItem | undefined,
    retentionDays: trashRetentionOf(organisationOf(org)),
  };
}

export async function getSprintItem(orgId: number, projectId: number, sprintId: number): Promise<SprintItem | undefined> {
  return getItem<SprintItem>(keys.sprint(orgId, projectId, sprintId));
}

/** A page of a project's sprints, read with the project (its `sprints_count`; undefined if gone). */
export async function listSprints(orgId: number, projectId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.sprints(orgId, projectId), page, [
    keys.project(orgId, projectId),
  ]);
  return { page: result, project: related[0] as ProjectItem | undefined };
}

/** A ConditionCheck that an account of the organisation exists (assignees, sprint leads). */
export const accountExists = (orgId: number, accountId: number, reason: RefusalReason): GuardedItem =>
  existsCheck(keys.account(orgId, accountId), reason);

/** Creates a sprint (status `planning`, counters at zero) in one transaction (`newSprint`). Refusals: `project`, `sprint_lead`. */
export async function insertSprint(orgId: number, projectId: number, fields: SprintFields): Promise<object> {
  const id = await nextId(orgId, 'sprint');
  const now = new Date().toISOString();
  const item = sprintItem.encode({
    id,
    orgId,
    projectId,
    name: fields.name,
    slug: fields.slug,
    description: fields.description,
    startDate: fields.start_date,
    endDate: fields.end_date,
    sprintLeadId: fields.sprint_lead_id,
    status: 'planning',
    actualEndDate: null,
    ...noCounters,
    positionsRev: 0,
    createdAt: now,
    updatedAt: now,
  });
  const placed = { ...keys.sprint(orgId, projectId, id), LSK: listKeys.sprint(id), type: sprintItem.type, ...item };
  await transact(newSprint(orgId, projectId, placed, fields.sprint_lead_id));
  return { ...keys.sprint(orgId, projectId, id), ...item, version: 1 };
}

/**
 * The writes of a new sprint (`item`): its put, the project's `sprints_count` (which also proves
 * the project exists) and its lead's account check. Refusals: `sprint_exists`, `project`, `sprint_lead`.
 */
const newSprint = (orgId: number, projectId: number, item: Record<string, unknown>, leadId: number | null): GuardedItem[] => [
  putNew(item, 'sprint_exists'),
  addTo(keys.project(orgId, projectId), projectItem.stored('sprintsCount'), 1, 'project'),
  ...(leadId === null ? [] : [accountExists(orgId, leadId, 'sprint_lead')]),
];

/** The scope counters as an export file's sprint history names them, which are the names they are stored under. */
const historyScopeCounters = ['added_issues', 'added_points', 'removed_issues', 'removed_points'] as const;

/**
 * What a sprint keeps of its past beside what it shows: its activation (time, day), what it
 * committed to then, the scope added and removed since, and each day's change of its open story
 * points (the report and the burndown are made of them), as an export file's sprint line carries it
 * (lib/services/import-export/export.ts), by the names it is stored under.
 */
export function sprintHistoryOf(s: Record<string, unknown>) {
  const numberOr = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    activated_at: typeof s.activated_at === 'string' ? s.activated_at : null,
    activated_on: typeof s.activated_on === 'string' ? s.activated_on : null,
    committed_issues: numberOr(s.committed_issues),
    committed_points: numberOr(s.committed_points),
    burndown_base: numberOr(s.burndown_base),
    ...Object.fromEntries(historyScopeCounters.map((c) => [c, numberOr(s[c])])),
    burndown: Object.fromEntries(sprintBurndown(s)),
  };
}

/** A sprint as an export file brings it (lib/services/import-export/import-export.ts): its state, report and history. */
export interface RestoredSprint {
  fields: SprintFields;
  status: 'planning' | 'active' | 'completed';
  actual_end_date: string | null;
  report: SprintReport | null;
  created_at: string;
  updated_at: string;
  /** What it kept of its past (`sprintHistoryOf`); each day's burndown change by YYYY-MM-DD. */
  history: Partial<Record<'activated_at' | 'activated_on', string | null>> &
    Partial<
      Record<'committed_issues' | 'committed_points' | 'burndown_base' | (typeof historyScopeCounters)[number], number | null>
    > & {
      burndown?: Record<string, number> | undefined;
    };
}

/** The put of the velocity summary of sprint `sprintId`, completed with report `r`. */
export const reportVelocityPut = (orgId: number, projectId: number, sprintId: number, r: SprintReport): GuardedItem =>
  velocityPut(orgId, projectId, r.completed_at, {
    sprint_id: sprintId,
    name: r.name,
    completed_at: r.completed_at,
    actual_end_date: r.actual_end_date,
    committed_story_points: r.committed.story_points,
    completed_story_points: r.completed.story_points,
  });

/**
 * Creates a sprint as it was elsewhere, under the id `id` (reserved by the caller): in its state,
 * with its report (and a completed sprint's velocity summary), its history and its times, counters
 * at zero (its issues bring theirs), with the project's `sprints_count`, in one transaction; marked
 * `restored`, so a run again finds it restored already. Refusals: `project`, `sprint_lead`.
 */
export async function restoreSprint(orgId: number, projectId: number, id: number, s: RestoredSprint): Promise<void> {
  const { burndown, ...history } = s.history;
  const kept = Object.fromEntries(Object.entries(history).filter(([, v]) => v !== null && v !== undefined));
  const item = {
    ...keys.sprint(orgId, projectId, id),
    LSK: listKeys.sprint(id),
    type: sprintItem.type,
    ...s.fields,
    ...sprintItem.encode({
      id,
      orgId,
      projectId,
      status: s.status,
      actualEndDate: s.actual_end_date,
      ...noCounters,
      positionsRev: 0,
      createdAt: s.created_at,
      updatedAt: s.updated_at,
    }),
    ...kept,
    ...Object.fromEntries(Object.entries(burndown ?? {}).map(([day, change]) => [burndownStored(burndownCounter(day)), change])),
    ...(s.report ? { report: s.report } : {}),
    restored: true,
  };
  const items = newSprint(orgId, projectId, item, s.fields.sprint_lead_id);
  if (s.report) items.push(reportVelocityPut(orgId, projectId, id, s.report));
  await transact(items);
}

/**
 * Writes the changed fields of a sprint (SET per field, so concurrent updates of other fields are
 * kept). `expected` holds stored values the change was validated against (the other date of the
 * `end_date >= start_date` rule): the write is refused (`sprint`) if they moved meanwhile, or if
 * the sprint is gone. A new lead is checked in the same transaction (`sprint_lead`).
 */
export async function updateSprintFields(
  orgId: number,
  projectId: number,
  sprintId: number,
  changes: Partial<SprintFields>,
  expected: Partial<Pick<SprintFields, 'start_date' | 'end_date'>>,
): Promise<string> {
  const now = new Date().toISOString();
  const set = {
    updatedAt: now,
    ...sentFields({
      name: changes.name,
      slug: changes.slug,
      description: changes.description,
      startDate: changes.start_date,
      endDate: changes.end_date,
      sprintLeadId: changes.sprint_lead_id,
    }),
  };
  // A stored value expected null is also one that is absent: a condition the guard cannot say.
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = Object.entries(expected).map(([k, v]) => equalsCondition(k, v, names, values));
  const unmoved = {
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  const key = keys.sprint(orgId, projectId, sprintId);
  const items: GuardedItem[] = [
    { ...sprintItem.updateAt(key, { set, if: { exists: true } }, 'sprint', unmoved), resource: true },
  ];
  if (typeof changes.sprint_lead_id === 'number') items.push(accountExists(orgId, changes.sprint_lead_id, 'sprint_lead'));
  await transact(items);
  return now;
}

/**
 * planning -> active as one conditional write: of two concurrent activations exactly one passes
 * the `status = planning` condition. `expectedStart` is the start date the caller read (the new
 * one is derived from it). The same write snapshots what the sprint commits to (issues, story
 * points, open story points: the report's `committed` and the burndown's start) from its own
 * counters, and restarts the added/removed counters and today's burndown change, so that only
 * what happens after activation counts. Refused (`sprint`) when the sprint is gone, either value
 * moved, or completions are carrying issues into it.
 */
export async function setSprintActive(
  orgId: number,
  projectId: number,
  sprintId: number,
  startDate: string,
  expectedStart: string | null,
  now: string,
): Promise<SprintItem> {
  const names: Record<string, string> = { '#receiving': stored('receiving') };
  const values: Record<string, unknown> = { ':zero': 0 };
  const startGuard = equalsCondition('start_date', expectedStart, names, values);
  const today = now.slice(0, 10);
  const scope = Object.fromEntries(scopeCounterNames.map((c) => [c, 0])) as Record<(typeof scopeCounterNames)[number], number>;
  const change: SprintChange = {
    set: { status: 'active', startDate, updatedAt: now, activatedAt: now, activatedOn: today, ...scope },
    if: { equals: { status: 'planning' } },
  };
  // Copies of its own counters, and today's burndown change: what the declaration cannot say.
  const snapshot: Spelled = {
    set: [
      `${stored('committedIssues')} = if_not_exists(${stored('issuesCount')}, :zero)`,
      `${stored('committedPoints')} = if_not_exists(${stored('totalStoryPoints')}, :zero)`,
      `${stored('burndownBase')} = if_not_exists(${stored('openStoryPoints')}, :zero)`,
      '#bd_today = :zero',
    ],
    names: { '#bd_today': burndownStored(burndownCounter(today)) },
  };
  const guards = {
    ConditionExpression: `${startGuard} AND ${notReceiving}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  const update = withSpelled(alsoIf(sprintItem.update(change), guards), snapshot);
  return updateResource<SprintItem>({ Key: keys.sprint(orgId, projectId, sprintId), ...update }, 'sprint');
}

/**
 * Moves a sprint into the organisation's trash in one transaction: the sprint's delete
 * (conditioned on the status it was read with, and on no completion carrying issues into it), its
 * velocity summary if it was completed, the project's `sprints_count`, the delete's marker (who
 * deleted it, lib/db/core/deletions.ts) and the trash item, `withdrawing` (docs/trash.md). Its issues
 * (and what lives under them) stay where they are, unreachable at once, since every read checks
 * the sprint; the cascade consumer takes them out of what is kept of them outside the sprint
 * (lib/jobs/container-trash.ts). Refusals: `sprint` (absent or changed), `project` (absent).
 */
export async function deleteSprint(
  orgId: number,
  projectId: number,
  sprint: SprintItem,
  trash: { deletedBy: number; retentionDays: number },
): Promise<void> {
  const items: GuardedItem[] = [
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.sprint(orgId, projectId, sprint.id),
          ConditionExpression: `attribute_exists(PK) AND #status = :status AND ${notReceiving}`,
          ExpressionAttributeNames: { '#status': stored('status'), '#receiving': stored('receiving') },
          ExpressionAttributeValues: { ':status': sprint.status, ':zero': 0 },
        },
      },
      reason: 'sprint',
      resource: true,
    },
    addTo(keys.project(orgId, projectId), 'sprints_count', -1, 'project'),
  ];
  if (sprint.report) {
    items.push({
      item: { Delete: { TableName: tableName(), Key: keys.velocity(orgId, projectId, sprint.report.completed_at, sprint.id) } },
    });
  }
  items.push(
    ...deletionMarker(keys.sprint(orgId, projectId, sprint.id)),
    trashPut(
      orgId,
      'sprint',
      sprint as unknown as Record<string, unknown>,
      trashTitle(sprint.name),
      trash.deletedBy,
      trash.retentionDays,
      'withdrawing',
    ),
  );
  await transact(items);
}

/** `ADD` clause for non-zero counter deltas (names/values filled in). Empty string when all are zero. */
export function addCounters(
  delta: Partial<Record<string, number>>,
  names: Record<string, string>,
  values: Record<string, unknown>,
  tag = 'd',
): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(delta)) {
    if (!v) continue;
    names[`#${k}`] = k;
    values[`:${tag}_${k}`] = v;
    parts.push(`#${k} :${tag}_${k}`);
  }
  return parts.join(', ');
}

/** A change of a sprint, by its declared fields (lib/db/core/item.ts). */
export type SprintChange = Change<typeof sprintItem.attributes>;

/**
 * What a sprint's declaration cannot say, joined to one of its changes (a change without `add`):
 * assignments spelled by hand (`set`: a copy of one attribute into another, a nested path) and
 * counters by their stored names (`add`: its columns' and days'), with the names and values they use.
 */
export interface Spelled {
  set?: string[];
  add?: Record<string, number>;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** `update` with what `spelled` adds to it. */
export function withSpelled<U extends UpdateExpressions>(update: U, spelled: Spelled): U {
  const names = { ...update.ExpressionAttributeNames, ...spelled.names };
  const values = { ...update.ExpressionAttributeValues, ...spelled.values };
  const added = addCounters(spelled.add ?? {}, names, values);
  const sets = spelled.set?.join(', ');
  let expression = update.UpdateExpression;
  if (sets)
    expression = expression.startsWith('SET ') ? expression.replace('SET ', `SET ${sets}, `) : `SET ${sets} ${expression}`;
  return {
    ...update,
    UpdateExpression: [expression.trim(), added && `ADD ${added}`].filter(Boolean).join(' '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

/** `change` of the sprint `sprintId` as a transaction item (`sprintItem.updateAt`), with `spelled` joined. */
export function sprintUpdateAt(
  orgId: number,
  projectId: number,
  sprintId: number,
  change: SprintChange,
  spelled: Spelled,
  reason: RefusalReason,
  also?: Condition,
): GuardedItem {
  const update = sprintItem.updateAt(keys.sprint(orgId, projectId, sprintId), change, reason, also);
  return { ...update, item: { Update: withSpelled(update.item.Update, spelled) } };
}

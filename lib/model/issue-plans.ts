import { initialWatchers } from './notifications.ts';
import type { Issue, IssueCreate, IssueLocation, IssuePriority, IssueType, IssueUpdate } from '../schemas/issues.ts';
import { noSubIssues } from '../vocabulary/values.ts';
import type { StateCategory } from '../vocabulary/workflow.ts';
import { NotFoundError, SprintBusyError, ValidationError } from '../vocabulary/errors.ts';
import { unclassified } from './derivations.ts';
import { labelIdsIn, labelsShown, type Catalogue } from './labels.ts';
import { accountsNamed, plannedValues, shownValues, storedFromShown, type FieldSet, type StoredValues } from './custom-fields.ts';
import { appendedPosition, gapFor, planPlacement, type ListWindow, type Renumbering, type Slot } from './positions.ts';
import {
  liveState,
  stateOnCreate,
  stateOnUpdate,
  statusAnswer,
  transitionProblems,
  type StateWrite,
  type Workflow,
} from './workflow.ts';

/**
 * The decisions of the issue writes (lib/services/issues.ts), each a pure function of what was
 * read and what was asked: what a create writes, what an update sets, where an issue goes in its
 * list. The use case reads, asks its plan here, and writes what the plan says. A refusal is thrown
 * as the typed error the client sees.
 */

export const assigneeMessage = 'assignee_id must be an account of this organisation';
export const fieldAccountMessage = 'custom_fields: an account field takes an account of this organisation';
export const targetSprintMessage = 'sprint_id must be a sprint of this project';

/** What the plans read of a project: its label catalogue, its workflow and its custom fields. */
export interface ProjectRules {
  catalogue: Catalogue;
  workflow: Workflow;
  fields: FieldSet;
}

/** What an import keeps of its source on an issue it creates; absent: as a create sets it. */
export interface ImportedFields {
  created_at?: string | undefined;
  /** Also the time the create is made at. */
  updated_at?: string | undefined;
  /** Undefined: as a create sets them (from `updated_at`); null: none. */
  started_at?: string | null | undefined;
  completed_at?: string | null | undefined;
  source_key?: string | null | undefined;
}

/** What a create takes from its project: an id, a number (`n` of `<prefix>-n`) and an appended position. */
export interface NewSlot {
  id: number;
  number: number;
  positionSeq: number;
}

/** A create as its plan reads it: its list, its fields, what an import keeps, and the time it is made at. */
export interface CreateRequest {
  at: IssueLocation;
  input: IssueCreate;
  imported?: ImportedFields | undefined;
  now: string;
  /** Who creates it (an import's issue: its own author), its first watcher with its assignee. */
  authorId?: number | undefined;
}

/**
 * The state a create puts its issue in (the one it names, else the first of its list's default
 * category), held to what that state requires (docs/workflows.md: transition rules); 422 otherwise.
 */
export function stateOfNewIssue(workflow: Workflow, input: IssueCreate, sprintId: number | null, now: string): StateWrite {
  const state = stateOnCreate(workflow, input, sprintId === null ? 'backlog' : 'todo', now);
  const to = liveState(workflow, state.state_id);
  const problems = to
    ? transitionProblems(workflow, undefined, to, {
        blocked: false,
        assignee_id: input.assignee_id ?? null,
        story_points: input.story_points ?? null,
        due_date: input.due_date ?? null,
        description: input.description ?? null,
      })
    : [];
  // Less its last line (the states an issue may move to: a create moves from none).
  if (problems.length > 0) throw new ValidationError(problems.slice(0, -1));
  return state;
}

/**
 * A new issue as its create writes it: the id, number and appended position of its slot, in its
 * list, with what was given (labels as resolved), its parent, and what an import keeps of its
 * source (times, key). Default status: `todo` in a sprint, `backlog` in the backlog (422 for a state
 * whose rules refuse it).
 */
export function newIssue(
  slot: NewSlot,
  prefix: string,
  request: CreateRequest,
  labelIds: number[],
  parentId: number | null,
  rules: ProjectRules,
  values: StoredValues = {},
): Issue {
  const { at, input, imported } = request;
  const now = imported?.updated_at ?? request.now;
  const state = stateOfNewIssue(rules.workflow, input, at.sprintId, now);
  return {
    id: slot.id,
    project_id: at.projectId,
    sprint_id: at.sprintId,
    issue_number: `${prefix}-${slot.number}`,
    source_key: imported?.source_key ?? null,
    title: input.title,
    description: input.description ?? null,
    ...statusAnswer(rules.workflow, state.state_id, state.status),
    story_points: input.story_points ?? null,
    position: appendedPosition(slot.positionSeq),
    assignee_id: input.assignee_id ?? null,
    priority: input.priority ?? unclassified.priority,
    type: input.type ?? unclassified.type,
    due_date: input.due_date ?? null,
    parent_id: parentId,
    sub_issues_summary: { ...noSubIssues },
    labels: labelsShown(labelIds, rules.catalogue),
    custom_fields: shownValues(values, rules.fields),
    started_at: imported?.started_at === undefined ? state.started_at : imported.started_at,
    completed_at: imported?.completed_at === undefined ? state.completed_at : imported.completed_at,
    created_at: imported?.created_at ?? now,
    updated_at: now,
    blocked: false,
    links: { count: 0, pull_request_state: null, pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 } },
    watchers: watchersOf(initialWatchers(request.authorId, input.assignee_id)),
  };
}

/** What a create writes: the issue, the ids of the labels it carries, its custom fields' values (and the accounts they name). */
export interface CreatePlan {
  issue: Issue;
  labelIds: number[];
  values: StoredValues;
  accounts: number[];
}

/** A create's custom fields' values, as its project's fields take them (422 naming each problem), and the accounts they name. */
export function createdValues(rules: ProjectRules, input: IssueCreate, imported: boolean) {
  const values = plannedValues(rules.fields, input.custom_fields, { imported });
  return { values, accounts: accountsNamed(rules.fields, values) };
}

/**
 * A create on the slot it took, its parent decided: the labels it names (422 for one the catalogue
 * does not hold), then its state (422 when that state's rules refuse the issue).
 */
export function planCreate(
  slot: NewSlot,
  prefix: string,
  request: CreateRequest,
  parentId: number | null,
  rules: ProjectRules,
): CreatePlan {
  const labels = request.input.labels;
  const labelIds = labels === undefined ? [] : labelIdsIn(rules.catalogue, labels);
  const { values, accounts } = createdValues(rules, request.input, request.imported !== undefined);
  return { issue: newIssue(slot, prefix, request, labelIds, parentId, rules, values), labelIds, values, accounts };
}

/** A parent given to creates together, decided once: what its children store of it (none: they are created without it), and its room for more children. */
export interface GivenParent<L> {
  link: L | undefined;
  room: number;
}

/** One create of creates together: its list, its fields, what an import keeps. */
export interface TogetherRequest {
  sprintId: number | null;
  input: IssueCreate;
  imported?: ImportedFields | undefined;
  /** Who creates it (an import's issue: its own author). */
  authorId?: number | undefined;
}

/** What a create among creates together writes (`parent`: its parent's link), or why it is refused. */
export type TogetherPlan<L> =
  | { index: number; issue: Issue; labelIds: number[]; values: StoredValues; accounts: number[]; parent: L | undefined }
  | { index: number; refused: unknown };

/**
 * Creates together on the slots they took, in order: each as `planCreate` decides it, with its
 * parent while that parent has room (the first children take it; the others are created without
 * one, and linked later). A refused create keeps the room it took.
 */
export function planCreatesTogether<L>(
  projectId: number,
  creates: readonly TogetherRequest[],
  reserved: { prefix: string; slots: readonly NewSlot[] },
  parents: ReadonlyMap<number, GivenParent<L>>,
  rules: ProjectRules,
  now: string,
): TogetherPlan<L>[] {
  const room = new Map([...parents].map(([id, p]) => [id, p.room]));
  return creates.map((c, index) => {
    try {
      const labelIds = c.input.labels === undefined ? [] : labelIdsIn(rules.catalogue, c.input.labels);
      const { values, accounts } = createdValues(rules, c.input, c.imported !== undefined);
      const wanted = c.input.parent_id ?? null;
      const given = wanted === null ? undefined : parents.get(wanted);
      const left = wanted === null ? 0 : (room.get(wanted) ?? 0);
      const parent = given?.link !== undefined && left > 0 ? given.link : undefined;
      if (parent !== undefined && wanted !== null) room.set(wanted, left - 1);
      const request = {
        at: { projectId, sprintId: c.sprintId },
        input: c.input,
        imported: c.imported,
        now,
        authorId: c.authorId,
      };
      const issue = newIssue(
        reserved.slots[index]!,
        reserved.prefix,
        request,
        labelIds,
        parent === undefined ? null : wanted,
        rules,
        values,
      );
      return { index, issue, labelIds, values, accounts, parent };
    } catch (refused) {
      return { index, refused };
    }
  });
}

/** The fields an update sets, by the names of the issue's declaration (lib/db/issues/issue-item.ts); its time always among them. */
export interface IssueFieldSet {
  updatedAt: string;
  sprintId?: number | null | undefined;
  parentId?: number | null | undefined;
  parentNumber?: string | null | undefined;
  title?: string | undefined;
  description?: string | null | undefined;
  storyPoints?: number | null | undefined;
  assigneeId?: number | null | undefined;
  priority?: IssuePriority | undefined;
  type?: IssueType | undefined;
  dueDate?: string | null | undefined;
  stateId?: number | null | undefined;
  status?: StateCategory | undefined;
  startedAt?: string | null | undefined;
  completedAt?: string | null | undefined;
  labelIds?: number[] | undefined;
  customFields?: StoredValues | undefined;
}

/** An update's plain fields, by the API's name and the issue declaration's. */
const plainFields = [
  ['title', 'title'],
  ['description', 'description'],
  ['story_points', 'storyPoints'],
  ['assignee_id', 'assigneeId'],
  ['priority', 'priority'],
  ['type', 'type'],
  ['due_date', 'dueDate'],
] as const satisfies readonly (readonly [keyof IssueUpdate & keyof Issue, keyof IssueFieldSet])[];

/** What an update writes of an issue's own fields (`set`), the issue as it will read (`next`), and the accounts its custom fields newly name (checked by its write). */
export interface FieldPlan {
  set: IssueFieldSet;
  next: Issue;
  accounts?: number[] | undefined;
}

/**
 * What an update sets of an issue's own fields, beside what `base` holds already (its time, its
 * list, its parent): the plain fields, the state with its category and times (held to the
 * project's rules: 422), the labels by id (422 for one the catalogue does not hold). The issue as it
 * will read: its status by the state's name, its labels through the catalogue.
 */
export function planFieldChanges(current: Issue, changes: IssueUpdate, rules: ProjectRules, base: IssueFieldSet): FieldPlan {
  const set: IssueFieldSet = { ...base };
  const next: Issue = {
    ...current,
    updated_at: set.updatedAt,
    ...(set.sprintId !== undefined && { sprint_id: set.sprintId }),
    ...(set.parentId !== undefined && { parent_id: set.parentId }),
  };
  for (const [field, stored] of plainFields) {
    if (changes[field] === undefined) continue;
    Object.assign(set, { [stored]: changes[field] });
    Object.assign(next, { [field]: changes[field] });
  }
  const state = stateChange(current, changes, rules.workflow, set.updatedAt);
  if (state) {
    Object.assign(set, stateSet(state));
    // The answer's status is the state's name, not its category.
    Object.assign(next, {
      started_at: state.started_at,
      completed_at: state.completed_at,
      ...statusAnswer(rules.workflow, state.state_id, state.status, current.blocked),
    });
  }
  if (changes.labels !== undefined) {
    set.labelIds = labelIdsIn(rules.catalogue, changes.labels);
    next.labels = labelsShown(set.labelIds, rules.catalogue);
  }
  if (changes.custom_fields === undefined) return { set, next };
  const values = updatedValues(rules, current, changes.custom_fields);
  set.customFields = values.values;
  next.custom_fields = values.shown;
  return { set, next, accounts: values.accounts };
}

/**
 * An update's custom fields' values: the issue's as it shows them (`current`), with those `given`
 * set or cleared (422 naming each problem); as stored, as shown, and the accounts newly named.
 */
export function updatedValues(rules: ProjectRules, current: Issue, given: Readonly<Record<string, unknown>> | null) {
  const held = storedFromShown(rules.fields, current.custom_fields);
  const values = plannedValues(rules.fields, given, { current: held });
  const before = new Set(accountsNamed(rules.fields, held));
  return {
    values,
    shown: shownValues(values, rules.fields),
    accounts: accountsNamed(rules.fields, values).filter((id) => !before.has(id)),
  };
}

/** A state write (`StateWrite`) as the fields it sets: the state, its category and its times. */
export const stateSet = (state: StateWrite) => ({
  stateId: state.state_id,
  status: state.status,
  startedAt: state.started_at,
  completedAt: state.completed_at,
});

/**
 * The state an update asks for (docs/workflows.md), held to the project's rules on the issue as the
 * update leaves it: 422 naming each rule it breaks. Undefined when it asks for none.
 */
function stateChange(current: Issue, changes: IssueUpdate, workflow: Workflow, now: string): StateWrite | undefined {
  const state = stateOnUpdate(workflow, { ...current, status: current.status_category }, changes, now);
  if (!state) return undefined;
  const to = liveState(workflow, state.state_id);
  const after = <K extends 'assignee_id' | 'story_points' | 'due_date' | 'description'>(field: K) =>
    changes[field] !== undefined ? changes[field] : current[field];
  const problems = to
    ? transitionProblems(workflow, liveState(workflow, current.state_id), to, {
        blocked: current.blocked,
        assignee_id: after('assignee_id') ?? null,
        story_points: after('story_points') ?? null,
        due_date: after('due_date') ?? null,
        description: after('description') ?? null,
      })
    : [];
  if (problems.length > 0) throw new ValidationError(problems);
  return state;
}

/** An update `updateIssuesTogether` takes: one that leaves the issue where it is, with no new parent. */
export const isPlainUpdate = (changes: IssueUpdate, at: IssueLocation): boolean =>
  changes.position === undefined &&
  changes.parent_id === undefined &&
  (changes.sprint_id === undefined || changes.sprint_id === at.sprintId);

/** The list an update leaves its issue in: the one it names (`sprint_id`; null: the backlog), else its own. */
export function updateTarget(at: IssueLocation, changes: IssueUpdate): { target: number | null; moving: boolean } {
  const target = changes.sprint_id !== undefined ? changes.sprint_id : at.sprintId;
  return { target, moving: target !== at.sprintId };
}

/** A move into a sprint the project has not (`found`: whether the read found it): 422. */
export function checkTarget(target: number | null, found: boolean): void {
  if (target !== null && !found) throw new ValidationError([targetSprintMessage]);
}

/** Where an update puts its issue: the new stored key and what moves with it. */
export interface Place {
  /** The new stored key; undefined leaves the issue where it is. */
  position?: number | undefined;
  renumber?: Renumbering[] | undefined;
  /** A computed position: the target list's revision the write must check (and bump). */
  listRev?: { expected: number | undefined } | undefined;
  /** The place the issue ends up at, when the decision gives it (a place asked for, or last). */
  at?: number | undefined;
}

/**
 * The first step of a placement, before any read of the list: the issue stays where it is, is
 * appended (a move with no place asked, or a place past the end), stays as the only one of its
 * list (`kept`), or goes to a place among its siblings (`window`: the neighbours are read).
 */
export type PlaceStep = { kind: 'stay' } | { kind: 'append' } | { kind: 'kept'; at: number } | { kind: 'window' };

/** `siblings`: the issues of the target list other than this one; `position`: the place asked for, if any. */
export function placeStep(moving: boolean, siblings: number, position: number | undefined): PlaceStep {
  if (position === undefined) return moving ? { kind: 'append' } : { kind: 'stay' };
  if (position > siblings) return !moving && siblings === 0 ? { kind: 'kept', at: 1 } : { kind: 'append' };
  return { kind: 'window' };
}

/** What a placement reads of its list: its neighbours around the place, the revision, the bound past the last key. */
export interface PlaceRead {
  window: ListWindow;
  /** The target list's revision as read. */
  listRev: number | undefined;
  /** A key past every key of the list (the allocator's next). */
  endBound: number;
}

/** The place asked for, in the window read: a key there, the issue already there, or a packed run behind the gap (`successor` its first issue); appended when there is none. */
export type WindowStep = { kind: 'placed'; place: Place } | { kind: 'packed'; successor: Slot } | { kind: 'append' };

/** Where the issue goes among the neighbours read (see lib/model/positions.ts for the algorithm). */
export function placeInWindow(moving: boolean, position: number, read: PlaceRead): WindowStep {
  const { window } = read;
  const gap = gapFor(position, window.before, window.slots.length);
  if (!moving && window.movedAt === gap) return { kind: 'placed', place: { at: position } };
  const plan = planPlacement({ slots: window.slots, gap, atStart: window.atStart, atEnd: window.atEnd, endBound: read.endBound });
  // A midpoint between its neighbours writes the moving issue alone: places stay exact whatever
  // runs at once (list order is by key, then id, so even an equal key has its own place), and
  // concurrent moves into one list commit side by side. Only a placement that respaces neighbours
  // is serialised by the list's revision: it rewrites keys that another placement may be reading.
  if (plan) {
    const listRev = plan.renumber.length > 0 ? { expected: read.listRev } : undefined;
    return { kind: 'placed', place: { position: plan.position, renumber: plan.renumber, listRev, at: position } };
  }
  const successor = window.slots[gap];
  return successor ? { kind: 'packed', successor } : { kind: 'append' };
}

/** Renumbered neighbours that fit in the issue's own transaction next to its other items (two items each: it and its search record). */
export const RENUMBER_WITH_WRITE = 44;
/** Renumbered neighbours per transaction when a packed run is re-appended (two items each, plus the list's owner). */
export const RENUMBER_STEP = 49;

/** A packed run re-appended behind the moving issue: its key, the moves written with it, and those written before it. */
export interface PackedRunPlan {
  position: number;
  head: Renumbering[];
  /** In the order they are written: from the end of the list backwards. */
  chunks: Renumbering[][];
}

/**
 * No window within one transaction has room: the run from the gap to the end of the list (`run`,
 * the moving issue left out) is re-appended behind the issue on fresh allocations from `first`.
 * The chunks far from the gap are written first, from the end backwards, each on its own with its
 * rank counters (allocations are unique and above everything, so the list stays ordered after every
 * chunk); the chunk next to the gap goes with the issue's own transaction. The only path whose cost
 * grows with the list (see positions.ts).
 */
export function planPackedRun(run: readonly Slot[], first: number): PackedRunPlan {
  const moves = run.map((s, i) => ({ id: s.id, from: s.position, to: appendedPosition(first + 1 + i) }));
  const head = moves.slice(0, RENUMBER_WITH_WRITE);
  const chunks: Renumbering[][] = [];
  for (let end = moves.length; end > head.length; end -= RENUMBER_STEP) {
    chunks.push(moves.slice(Math.max(head.length, end - RENUMBER_STEP), end));
  }
  return { position: appendedPosition(first), head, chunks };
}

/** What a write into a list answers when the list is not there to take it: no project, no sprint (404), a sprint being completed (409). */
export function listRefusal(
  projectFound: boolean,
  sprintId: number | null,
  sprint: { status?: unknown } | undefined,
): NotFoundError | SprintBusyError | undefined {
  if (!projectFound) return new NotFoundError('Project');
  if (sprintId !== null && !sprint) return new NotFoundError('Sprint');
  if (sprint?.status === 'completing') return new SprintBusyError();
  return undefined;
}

const watchersOf = (ids: number[]) => ({ count: ids.length, account_ids: ids.sort((a, b) => a - b) });

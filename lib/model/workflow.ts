import { ValidationError } from '../vocabulary/errors.ts';
import {
  defaultStateColors,
  stateCategories,
  statusKey,
  type RequiredField,
  type StateCategory,
} from '../vocabulary/workflow.ts';

/**
 * A project's workflow (docs/workflows.md): its states, each in one of the five fixed categories,
 * in board order. Pure rules: which state a write names, which state an issue is in, what a name
 * may be, and what a change of category does to `started_at` / `completed_at`.
 *
 * An issue stores its state's id (`state_id`) and its category (`status`, as it always has): every
 * count, report and filter that meant "open", "started" or "done" reads the category, so they hold
 * whatever a team names its states. An issue written before workflows existed has no `state_id`:
 * it is in its category's *home* state (the one the project got for that category when its
 * workflow was made), so that no issue had to be rewritten.
 */

export interface WorkflowState {
  id: number;
  name: string;
  color: string;
  category: StateCategory;
  /** Board order: states sort by it, then by id. */
  order: number;
  /** Issues a column should hold at most (per sprint, or in the backlog), or null. */
  wipLimit: number | null;
  createdAt: string;
  updatedAt: string;
  /** Its item's version (its ETag): the copy on the project item keeps it with the rest. */
  version: number;
  /** Transition rules (docs/workflows.md): the states an issue in it may move to (null: any). */
  allowedNext: number[] | null;
  /** Fields an issue must have set to enter it. */
  requiredFields: RequiredField[];
  /** Whether a blocked issue may not enter it ("nothing goes to done while it is blocked"). */
  refuseBlocked: boolean;
}

export interface Workflow {
  /** In board order. Empty for a project whose workflow was never made (before its migration). */
  states: WorkflowState[];
  /** The state of issues without `state_id`, per category. */
  homes: Partial<Record<StateCategory, number>>;
  /** A deleted state -> the state its issues went to (followed until a live one). */
  moved: Map<number, number>;
  /** Bumped by every change of the workflow: its writes are conditioned on the one they read. */
  rev: number | undefined;
  /** The highest state id the project ever used (never used again). */
  lastId: number;
}

export { requiredFields, type RequiredField } from '../vocabulary/workflow.ts';

/** The order the default states get, by category; a state added to a category goes after its last one. */
export const defaultOrder = (category: StateCategory) => (stateCategories.indexOf(category) + 1) * 1000;

export { statusKey } from '../vocabulary/workflow.ts';

/**
 * The states a new project gets, one per category, named after it. State ids are the project's own
 * (a state lives in its project's partition): these are 1..5, and a state added later takes the
 * next after the highest the project ever used (`Workflow.lastId`), so that no id is used twice.
 */
export function defaultStates(now: string): WorkflowState[] {
  return stateCategories.map((category, i) => ({
    id: i + 1,
    name: category,
    color: defaultStateColors[category],
    category,
    order: defaultOrder(category),
    wipLimit: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
    allowedNext: null,
    requiredFields: [],
    refuseBlocked: false,
  }));
}

export const byBoardOrder = (a: WorkflowState, b: WorkflowState) => a.order - b.order || a.id - b.id;

/** The first state of a category in board order (what a write naming the category means). */
export function firstOf(workflow: Workflow, category: StateCategory): WorkflowState | undefined {
  return workflow.states.find((s) => s.category === category);
}

/** A live state by id, following deleted states to where their issues went. */
export function liveState(workflow: Workflow, id: number | null | undefined): WorkflowState | undefined {
  let at = id;
  for (let hops = 0; at !== undefined && at !== null && hops < 20; hops++) {
    const found = workflow.states.find((s) => s.id === at);
    if (found) return found;
    at = workflow.moved.get(at);
  }
  return undefined;
}

/**
 * The state an issue is in: its `state_id` (followed if that state was deleted), else its
 * category's home; the category's first state if neither is there. Undefined only for a project
 * without a workflow (before its migration): the issue then answers its category, as before.
 */
export function stateOfIssue(
  workflow: Workflow,
  stateId: number | null | undefined,
  category: StateCategory,
): WorkflowState | undefined {
  return liveState(workflow, stateId ?? workflow.homes[category]) ?? firstOf(workflow, category);
}

/** What an issue answers of its state. */
export interface StatusAnswer {
  status: string;
  state_id: number | null;
  status_category: StateCategory;
  /** The states the issue may move to now (`allowedNextStates`). */
  allowed_next_states: string[];
}

export function statusAnswer(
  workflow: Workflow | undefined,
  stateId: number | null | undefined,
  category: StateCategory,
  blocked = false,
): StatusAnswer {
  const state = workflow ? stateOfIssue(workflow, stateId, category) : undefined;
  if (!workflow || !state) {
    const others = stateCategories.filter((c) => c !== category);
    return { status: category, state_id: stateId ?? null, status_category: category, allowed_next_states: others };
  }
  return {
    status: statusKey(state.name),
    state_id: state.id,
    status_category: state.category,
    allowed_next_states: allowedNextStates(workflow, state, blocked),
  };
}

/** What a write asks of an issue's state (`state_id` null: as if absent, so that an answer can be sent back). */
export interface StateAsk {
  state_id?: number | null | undefined;
  status?: string | undefined;
}

const listed = (workflow: Workflow) => workflow.states.map((s) => `'${statusKey(s.name)}'`).join(', ');

/**
 * The state a write names: `state_id`, or `status` as a state's name (any case and spacing, or its
 * `status` key) or a category's name (its first state). Both given: they must name the same state.
 * 422 naming the field otherwise. A project without a workflow takes the five categories only.
 */
export function requestedState(workflow: Workflow, ask: StateAsk): { state: WorkflowState | undefined; category: StateCategory } {
  let byId: WorkflowState | undefined;
  if (ask.state_id !== undefined && ask.state_id !== null) {
    byId = workflow.states.find((s) => s.id === ask.state_id);
    if (!byId) throw new ValidationError([`state_id: ${ask.state_id} is not a state of this project`]);
  }
  let byName: WorkflowState | undefined;
  let category: StateCategory | undefined;
  if (ask.status !== undefined) {
    const key = statusKey(ask.status);
    byName = workflow.states.find((s) => statusKey(s.name) === key);
    if (!byName && (stateCategories as readonly string[]).includes(key)) {
      category = key as StateCategory;
      byName = firstOf(workflow, category);
    }
    if (!byName && !category) {
      const names = workflow.states.length > 0 ? listed(workflow) : stateCategories.join(', ');
      throw new ValidationError([`status: '${ask.status}' is no state of this project (states: ${names}; or a category)`]);
    }
  }
  if (byId && byName && byId.id !== byName.id) {
    throw new ValidationError([`status: '${ask.status}' and state_id ${byId.id} name different states`]);
  }
  const state = byId ?? byName;
  return { state, category: state?.category ?? (category as StateCategory) };
}

/**
 * What is wrong with naming a state `name` in `category` (`except`: the state being renamed):
 * a name with no letter or digit, one taken (under its `status` key), or a category's name given
 * to a state of another category (`status: "done"` must mean done).
 */
export function nameProblems(workflow: Workflow, name: string, category: StateCategory, except?: number): string[] {
  const key = statusKey(name);
  if (key === '') return ['name must contain a letter or a digit'];
  const problems: string[] = [];
  if (workflow.states.some((s) => s.id !== except && statusKey(s.name) === key)) {
    problems.push(
      `name has already been taken by another state of this project (names are unique ignoring case, spaces and punctuation: '${key}')`,
    );
  }
  if ((stateCategories as readonly string[]).includes(key) && key !== category) {
    problems.push(`name '${name}' is the name of a category: a state of that name must be in category ${key}`);
  }
  return problems;
}

/** The order of a state added to `category` without one: right after the category's last state. */
export function orderFor(workflow: Workflow, category: StateCategory): number {
  const ofCategory = workflow.states.filter((s) => s.category === category);
  const last = ofCategory[ofCategory.length - 1];
  if (last) return last.order + 1;
  const before = workflow.states.filter((s) => stateCategories.indexOf(s.category) < stateCategories.indexOf(category));
  return (before[before.length - 1]?.order ?? 0) + 1;
}

/**
 * Why a state cannot be deleted: it is its category's last (every category keeps one, so that a
 * category's name always names a state), or `moveTo` is no other state of the project.
 */
export function deleteProblems(workflow: Workflow, state: WorkflowState, moveTo: WorkflowState | undefined): string[] {
  if (!workflow.states.some((s) => s.id !== state.id && s.category === state.category)) {
    return [`state '${state.name}' is the last state of category ${state.category}: every category keeps at least one`];
  }
  if (moveTo && moveTo.id === state.id) return ['move_to must be another state than the one deleted'];
  return [];
}

/** Categories of work not finished. */
/**
 * The `status:` names of a search that name no state of any of `workflows` (a project whose
 * workflow was never made has its categories' states), and the names known, in board order: a
 * typo is refused rather than matching nothing.
 */
export function unknownStateNames(
  names: readonly string[],
  workflows: readonly Workflow[],
): { unknown: string[]; known: string[] } {
  const known = new Set<string>();
  for (const workflow of workflows) {
    if (workflow.states.length === 0) for (const category of stateCategories) known.add(category);
    for (const state of workflow.states) known.add(statusKey(state.name));
  }
  return { unknown: names.filter((name) => !known.has(statusKey(name))), known: [...known] };
}

export const isClosedCategory = (category: StateCategory) => category === 'done' || category === 'cancelled';

/**
 * `started_at`/`completed_at` after a change of category: entering `in_progress` sets
 * `started_at` if it was not set; entering `done` or `cancelled` sets `completed_at`; leaving
 * them clears it. A move between two states of one category changes neither.
 */
export function statusTimestamps(
  previous: { status: StateCategory; started_at: string | null; completed_at: string | null } | undefined,
  next: StateCategory,
  now: string,
): { started_at: string | null; completed_at: string | null } {
  if (previous && previous.status === next) return { started_at: previous.started_at, completed_at: previous.completed_at };
  const startedAt = previous?.started_at ?? null;
  return {
    started_at: next === 'in_progress' && !startedAt ? now : startedAt,
    completed_at: isClosedCategory(next) ? now : null,
  };
}

/**
 * The state an issue coming back from the trash is written in when the state it was stored in was
 * deleted while it was away (docs/trash.md): the state that state's issues went to (else its
 * category's), with what the change of category does to its times, as the state's delete did to
 * the issues that were there (lib/jobs/state-cascade.ts). Undefined: its state is there.
 */
export function stateOnReturn(
  workflow: Workflow,
  stored: { stateId: number | null; status: StateCategory; startedAt: string | null; completedAt: string | null },
  now: string,
): StateWrite | undefined {
  if (stored.stateId === null || workflow.states.some((s) => s.id === stored.stateId)) return undefined;
  const target = stateOfIssue(workflow, stored.stateId, stored.status);
  return target && stateWrite(stored, target, now);
}

/**
 * What a move of an issue (as `stored`) into state `target` writes of its state, by the deleted
 * state's cascade or a restore: the state, its category, and what a change of category does to its times.
 */
export function stateWrite(
  stored: { status: StateCategory; startedAt: string | null; completedAt: string | null },
  target: WorkflowState,
  now: string,
): StateWrite {
  return {
    state_id: target.id,
    status: target.category,
    ...statusTimestamps(
      { status: stored.status, started_at: stored.startedAt, completed_at: stored.completedAt },
      target.category,
      now,
    ),
  };
}

/** What a write stores of an issue's state: the state, its category (`status`) and the times a change of category moves. */
export interface StateWrite {
  state_id: number | null;
  status: StateCategory;
  started_at: string | null;
  completed_at: string | null;
}

/**
 * What a create stores of its issue's state: the one asked for (`requestedState`), else the first
 * state of `fallback` (`todo` in a sprint, `backlog` in the backlog).
 */
export function stateOnCreate(workflow: Workflow, ask: StateAsk, fallback: StateCategory, now: string): StateWrite {
  const asked = (ask.state_id !== undefined && ask.state_id !== null) || ask.status !== undefined;
  const { state, category } = asked ? requestedState(workflow, ask) : { state: firstOf(workflow, fallback), category: fallback };
  return { state_id: state?.id ?? null, status: category, ...statusTimestamps(undefined, category, now) };
}

/**
 * What an update stores of its issue's state, or undefined when it asks for none. A move between
 * two states of one category keeps `started_at` and `completed_at`.
 */
export function stateOnUpdate(
  workflow: Workflow,
  current: { status: StateCategory; started_at: string | null; completed_at: string | null },
  ask: StateAsk,
  now: string,
): StateWrite | undefined {
  if ((ask.state_id === undefined || ask.state_id === null) && ask.status === undefined) return undefined;
  const { state, category } = requestedState(workflow, ask);
  return { state_id: state?.id ?? null, status: category, ...statusTimestamps(current, category, now) };
}

/** An issue as the transition rules read it. */
export interface RuledIssue {
  blocked: boolean;
  assignee_id: number | null;
  story_points: number | null;
  due_date: string | null;
  description: string | null;
}

/**
 * The states an issue in `from` may move to, in board order, as `status` keys: those its state
 * allows (all when it names none), less those a blocked issue may not enter while it is blocked.
 * Required fields are not counted: the move that sets them is allowed.
 */
export function allowedNextStates(workflow: Workflow, from: WorkflowState | undefined, blocked: boolean): string[] {
  return workflow.states
    .filter((s) => s.id !== from?.id)
    .filter((s) => !from?.allowedNext || from.allowedNext.includes(s.id))
    .filter((s) => !(blocked && s.refuseBlocked))
    .map((s) => statusKey(s.name));
}

/**
 * Why a move of `issue` (as it will be written) from `from` (undefined: a create) into `to` is
 * refused by the project's rules, each reason naming its rule; none when it is allowed. A move
 * within one state is no move.
 */
export function transitionProblems(
  workflow: Workflow,
  from: WorkflowState | undefined,
  to: WorkflowState,
  issue: RuledIssue,
): string[] {
  if (from?.id === to.id) return [];
  const problems: string[] = [];
  const name = (s: WorkflowState) => `'${statusKey(s.name)}'`;
  if (from?.allowedNext && !from.allowedNext.includes(to.id)) {
    problems.push(`status: ${name(from)} may not move to ${name(to)} (rule: allowed_next_state_ids of ${name(from)})`);
  }
  if (to.refuseBlocked && issue.blocked) {
    problems.push(`status: a blocked issue may not enter ${name(to)} (rule: refuse_blocked of ${name(to)})`);
  }
  const missing = to.requiredFields.filter((f) => issue[f] === null || issue[f] === '');
  if (missing.length > 0) {
    problems.push(`status: entering ${name(to)} requires ${missing.join(', ')} (rule: required_fields of ${name(to)})`);
  }
  if (problems.length === 0) return [];
  const next = allowedNextStates(workflow, from, issue.blocked);
  return [...problems, `allowed next states: ${next.length > 0 ? next.join(', ') : 'none'}`];
}

/**
 * The states whose rules (`allowedNext`) name `stateId`, each with it left out and `updatedAt` set:
 * what a delete of that state rewrites with it, so that no rule names a state that is gone (and no
 * later edit of them is refused for it). A rule left empty allows no move, as it said before for
 * every state but the deleted one.
 */
export function rulesWithout(workflow: Workflow, stateId: number, now: string): WorkflowState[] {
  return workflow.states
    .filter((s) => s.id !== stateId && s.allowedNext?.includes(stateId))
    .map((s) => ({ ...s, allowedNext: s.allowedNext!.filter((id) => id !== stateId), updatedAt: now }));
}

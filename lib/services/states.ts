import * as store from '../db/projects/states.ts';
import { getProjectItem } from '../db/projects/projects.ts';
import { isRefused, Refused, rereadOnStale, STALE } from '../db/core/transactions.ts';
import type { Principal } from '../model/principal.ts';
import {
  deleteProblems,
  liveState,
  nameProblems,
  orderFor,
  stateOfIssue,
  rulesWithout,
  statusKey,
  type Workflow,
  type WorkflowState,
} from '../model/workflow.ts';
import type { State, StateCreate, StateUpdate } from '../schemas/states.ts';
import { withVersion } from '../db/core/versions.ts';
import { NotFoundError, UnavailableError, ValidationError } from '../vocabulary/errors.ts';
import { defaultStateColors, isStateCategory, stateCategories, stateLimits } from '../vocabulary/workflow.ts';

/**
 * A project's workflow states (docs/workflows.md): listed in board order, created, renamed,
 * recoloured, reordered, given a WIP limit, and deleted with their issues moved to another state.
 * Every change is decided on the workflow as read with the project item, and written on condition
 * that it has not changed since; a change that lost that race decides again on a fresh read.
 */

/** A state as answered, with the version of its item (its ETag). */
export const stateAnswer = (orgId: number, projectId: number, s: WorkflowState): State =>
  withVersion(stateFields(projectId, s), { ...store.stateKey(orgId, projectId, s.id), version: s.version });

const stateFields = (projectId: number, s: WorkflowState): State => ({
  id: s.id,
  project_id: projectId,
  name: s.name,
  status: statusKey(s.name),
  category: s.category,
  color: s.color,
  order: s.order,
  wip_limit: s.wipLimit,
  allowed_next_state_ids: s.allowedNext,
  required_fields: s.requiredFields,
  refuse_blocked: s.refuseBlocked,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

/**
 * The project's workflow, as read with its item; a project made before workflows existed whose
 * migration has not reached it yet gets its default workflow first (what the migration writes).
 */
async function readWorkflow(caller: Principal, projectId: number, given = false): Promise<Workflow> {
  const project = await getProjectItem(caller.orgId, projectId);
  if (!project) throw new NotFoundError('Project');
  const workflow = store.workflowOf(project);
  if (workflow.rev !== undefined) return workflow;
  if (given) throw new UnavailableError();
  await store.giveDefaultWorkflow(caller.orgId, projectId);
  return readWorkflow(caller, projectId, true);
}

/** A workflow change, decided again on a fresh read while another change gets there first. */
async function changing<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await rereadOnStale(async () => {
      try {
        return await step();
      } catch (err) {
        throw isRefused(err, 'workflow') ? new Refused(STALE) : err;
      }
    });
  } catch (err) {
    if (isRefused(err, STALE)) throw new UnavailableError();
    if (isRefused(err, 'state')) throw new NotFoundError('State');
    throw err;
  }
}

/** The project's states, in board order (at most 50: one page). */
export async function listStates(caller: Principal, projectId: number): Promise<State[]> {
  const workflow = await readWorkflow(caller, projectId);
  return workflow.states.map((s) => stateAnswer(caller.orgId, projectId, s));
}

export async function getState(caller: Principal, projectId: number, stateId: number): Promise<State> {
  return stateAnswer(caller.orgId, projectId, (await readState(caller, projectId, stateId)).state);
}

/** The workflow and one state of it as its item is (its version: its ETag), or 404 for whichever is missing. */
async function readState(caller: Principal, projectId: number, stateId: number) {
  const read = await store.readStateFamily(caller.orgId, projectId, stateId);
  if (!read.project) throw new NotFoundError('Project');
  const workflow = store.workflowOf(read.project);
  if (!read.state || !workflow.states.some((s) => s.id === stateId)) throw new NotFoundError('State');
  return { workflow, state: read.state };
}

/** Creates a state; 422 when its name is taken (ignoring case, spaces and punctuation) or the project has 50. */
export async function createState(caller: Principal, projectId: number, input: StateCreate): Promise<State> {
  return changing(async () => {
    const workflow = await readWorkflow(caller, projectId);
    const problems = nameProblems(workflow, input.name, input.category);
    if (workflow.states.length >= stateLimits.perProject) {
      problems.push(`states: a project may have at most ${stateLimits.perProject} states`);
    }
    if (problems.length > 0) throw new ValidationError(problems);
    const id = workflow.lastId + 1;
    const now = new Date().toISOString();
    const state: WorkflowState = {
      id,
      name: input.name,
      color: input.color ?? defaultStateColors[input.category],
      category: input.category,
      order: input.order ?? orderFor(workflow, input.category),
      wipLimit: input.wip_limit ?? null,
      createdAt: now,
      updatedAt: now,
      version: 1,
      allowedNext: input.allowed_next_state_ids ?? null,
      requiredFields: input.required_fields ?? [],
      refuseBlocked: input.refuse_blocked ?? false,
    };
    const ruled = ruleProblems(workflow, state);
    if (ruled.length > 0) throw new ValidationError(ruled);
    await store.insertState(caller.orgId, projectId, workflow.rev, state);
    return stateAnswer(caller.orgId, projectId, state);
  });
}

/** Partial update (PUT and PATCH alike): name, colour, order, WIP limit; issues show the change at once. */
export async function updateState(caller: Principal, projectId: number, stateId: number, changes: StateUpdate): Promise<State> {
  return changing(async () => {
    const { workflow, state: current } = await readState(caller, projectId, stateId);
    if (changes.name !== undefined) {
      const problems = nameProblems(workflow, changes.name, current.category, current.id);
      if (problems.length > 0) throw new ValidationError(problems);
    }
    const next: WorkflowState = {
      ...current,
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.color !== undefined ? { color: changes.color } : {}),
      ...(changes.order !== undefined ? { order: changes.order } : {}),
      ...(changes.wip_limit !== undefined ? { wipLimit: changes.wip_limit } : {}),
      ...(changes.allowed_next_state_ids !== undefined ? { allowedNext: changes.allowed_next_state_ids } : {}),
      ...(changes.required_fields !== undefined ? { requiredFields: changes.required_fields } : {}),
      ...(changes.refuse_blocked !== undefined ? { refuseBlocked: changes.refuse_blocked } : {}),
      updatedAt: new Date().toISOString(),
    };
    const ruled = ruleProblems(workflow, next);
    if (ruled.length > 0) throw new ValidationError(ruled);
    return stateAnswer(caller.orgId, projectId, await store.updateState(caller.orgId, projectId, workflow.rev, current, next));
  });
}

/** What is wrong with a state's rules: a next state that is no state of the project. */
function ruleProblems(workflow: Workflow, state: WorkflowState): string[] {
  const unknown = (state.allowedNext ?? []).filter((id) => id !== state.id && !workflow.states.some((s) => s.id === id));
  if (unknown.length === 0) return [];
  return [`allowed_next_state_ids: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} no state of this project`];
}

/** How many of the project's issues are in `state` (issues moved into it and not yet rewritten, and its category's home issues, included). */
export function issuesIn(workflow: Workflow, counts: Map<string, number>, state: WorkflowState): number {
  let n = 0;
  for (const [key, count] of counts) {
    const category = key.startsWith('h_') ? key.slice(2) : undefined;
    const shown = isStateCategory(category) ? stateOfIssue(workflow, null, category) : liveState(workflow, Number(key));
    if (shown?.id === state.id) n += count;
  }
  return n;
}

/**
 * Deletes a state. Its issues move to `moveTo` (required while it has any): they show it at once,
 * and the cascade writes it on each of them in the background, with what a change of status
 * does (`started_at`, `completed_at`, counters). 422 for the last state of a category.
 */
export async function deleteState(caller: Principal, projectId: number, stateId: number, moveTo?: number): Promise<void> {
  await changing(async () => {
    const read = await store.projectColumnCounts(caller.orgId, projectId, stateId);
    if (!read) throw new NotFoundError('Project');
    const workflow = store.workflowOf(read.project);
    const state = read.state;
    if (!state || !workflow.states.some((s) => s.id === stateId)) throw new NotFoundError('State');
    const target = moveTo === undefined ? undefined : workflow.states.find((s) => s.id === moveTo);
    if (moveTo !== undefined && !target) throw new ValidationError([`move_to: ${moveTo} is not a state of this project`]);
    const problems = deleteProblems(workflow, state, target);
    if (problems.length > 0) throw new ValidationError(problems);
    const held = issuesIn(workflow, read.counts, state);
    if (held > 0 && !target) {
      throw new ValidationError([
        `move_to: state '${state.name}' has ${held} issue${held === 1 ? '' : 's'}: name the state they move to (move_to=<state id>)`,
      ]);
    }
    // No issue to move: one written meanwhile still goes somewhere, its category's next state.
    const to = target ?? (workflow.states.find((s) => s.id !== state.id && s.category === state.category) as WorkflowState);
    const ruled = rulesWithout(workflow, state.id, new Date().toISOString());
    await store.deleteState(caller.orgId, projectId, workflow.rev, state, to.id, ruled);
  });
}

/**
 * The statuses a write to the project may name: its states' `status` keys in board order, and the
 * categories (each names its first state); undefined when the project is not there. What an issue
 * body is validated against once a first pass refused a status that is no category.
 */
export async function writableStatuses(caller: Principal, projectId: number): Promise<string[] | undefined> {
  const project = await getProjectItem(caller.orgId, projectId);
  if (!project) return undefined;
  const keys = store.workflowOf(project).states.map((s) => statusKey(s.name));
  return [...keys, ...stateCategories.filter((c) => !keys.includes(c))];
}

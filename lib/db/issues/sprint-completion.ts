import type { SprintReport } from '../../schemas/sprints.ts';
import type { IssueChange } from '../../model/derivations.ts';
import { issueWrite, listOwnerUpdate } from './issue-write.ts';
import { keys } from '../core/keys.ts';
import { atCompletion, sprintItem, sprintUpdateAt, type SprintChange, type Spelled } from '../projects/sprints.ts';
import type { Condition } from '../core/item.ts';
import { transact, type GuardedItem } from '../core/transactions.ts';
import { storedNumberIs } from '../core/versions.ts';
import {
  COPIED,
  FIELDS,
  type CompletionPlaces,
  type CompletionPlan,
  type CountersAtCompletion,
  type VelocityEntry,
} from '../../model/completion.ts';
import type { RefusalReason } from '../core/refusals.ts';
import { velocityPut } from '../projects/velocity.ts';

/**
 * The completion of a sprint as stored steps (lib/services/sprints.ts decides them):
 *
 * 1. `beginCompletion`: active -> completing with its plan, and the sprint's counters copied as
 *    they stand (`at_completion_*`), in one transaction with the carry-over target's `receiving`
 *    count. From here on every issue write on the sprint is refused (lib/db/issues/issues.ts), so its
 *    open issues and counters are frozen.
 * 2. `completionMoves`, as many as needed: at most 96 items of moved issues (an issue and its search
 *    record, its assignee entry, its parent's index record) per transaction to the target,
 *    with both lists' counters. Their places come from one block of the project's allocator,
 *    reserved once for all the moves and recorded in the plan by the first batch
 *    (`CompletionPlan.places`), not from an allocation per batch.
 * 3. Finish: completing -> completed with its report, the velocity summary and the target's
 *    `receiving` count, in the transaction of the last batch (`finishCompletion` alone when no
 *    move is left).
 *
 * Every step is conditioned on the state it moves from, so two finishers never apply one twice.
 */

/** A sprint completed with `report`, out of `from` (a completing one also drops its plan). */
const completed = (plan: CompletionPlan, report: SprintReport, from: 'active' | 'completing'): SprintChange => ({
  set: { status: 'completed', actualEndDate: plan.actual_end_date, report, updatedAt: plan.completed_at },
  ...(from === 'completing' && { remove: ['completion' as const] }),
  if: { equals: { status: from } },
});

/**
 * The count of completions carrying issues into `target` (`receiving`), moved by `delta`: taken
 * while it is still in planning (refused as `reason` otherwise), given back while it exists.
 */
function receiving(orgId: number, projectId: number, target: number, delta: 1 | -1, reason: RefusalReason): GuardedItem {
  const planning = delta > 0 ? { equals: { status: 'planning' as const } } : {};
  return sprintItem.updateAt(
    keys.sprint(orgId, projectId, target),
    { add: { receiving: delta }, if: { exists: true, ...planning } },
    reason,
  );
}

/**
 * The update of the list that receives a completion's open issues by what the derivations add to
 * it: the backlog, or a sprint (with `requirePlanning`: still in planning).
 */
function targetUpdate(
  orgId: number,
  projectId: number,
  target: number | null,
  add: Record<string, number>,
  requirePlanning: boolean,
): GuardedItem {
  if (target === null || !requirePlanning) return listOwnerUpdate(orgId, projectId, target, add, 'target');
  // Nothing to add still checks the target: a write that changes nothing carries the condition.
  const set = Object.values(add).some(Boolean) ? {} : { status: 'planning' as const };
  const change: SprintChange = { set, if: { exists: true, equals: { status: 'planning' } } };
  return sprintUpdateAt(orgId, projectId, target, change, { add }, 'target');
}

/** What a completion step moves: the issues' items and changes, from `appendToList` (lib/db/issues/issues.ts). */
export interface CompletionMoves {
  moves: GuardedItem[];
  changes: IssueChange[];
  /** Where they go: a sprint, or null for the backlog. */
  target: number | null;
}

/**
 * A whole completion in one transaction, when its open issues fit (96 items of moves at most): `moves` (from
 * `appendToList`, each conditioned on the revision it was read at), the sprint active -> completed
 * with its report, the target (a target sprint must still be in planning) and the velocity
 * summary; the counters and indexes of the moves are the derivations' (lib/db/issues/issue-write.ts: the
 * sprint's as plain counters, the target's with its history). The sprint is conditioned on the
 * counters the report was computed from (`expected`), so the report is exact. Refusals: `moved`
 * (an issue changed), `sprint` (its status or a counter moved), `target`.
 */
export async function completeAtOnce(
  orgId: number,
  projectId: number,
  sprintId: number,
  step: CompletionMoves & {
    expected: CountersAtCompletion;
    plan: CompletionPlan;
    report: SprintReport;
    velocity: VelocityEntry;
  },
): Promise<void> {
  // The counters as read (an absent one is 0): a condition the guard cannot say.
  const counters = {
    ConditionExpression: COPIED.map((c) => storedNumberIs(`#e_${c}`, `:e_${c}`, step.expected[c])).join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(COPIED.map((c) => [`#e_${c}`, sprintItem.stored(c)])),
    ExpressionAttributeValues: Object.fromEntries(COPIED.map((c) => [`:e_${c}`, step.expected[c]])),
  };
  const sprint = { change: completed(step.plan, step.report, 'active'), also: counters, resource: true };
  await movesWrite(orgId, projectId, sprintId, step, sprint, true, [
    velocityPut(orgId, projectId, step.plan.completed_at, step.velocity),
  ]);
}

/**
 * One transaction of a completion's moves (lib/db/issues/issue-write.ts): the sprint's `change`
 * (with what `spelled` joins, on `also`) and what the derivations add to it, the target's (with
 * `planning`: a target sprint must still be in planning; with `giveBack`: a target sprint's
 * `receiving` count given back in the same update), then `tail`.
 */
async function movesWrite(
  orgId: number,
  projectId: number,
  sprintId: number,
  step: CompletionMoves,
  sprint: { change: SprintChange; spelled?: Spelled; also?: Condition | undefined; resource?: boolean },
  planning: boolean,
  tail: GuardedItem[] = [],
  giveBack = false,
): Promise<void> {
  const targetAdd = (add: Record<string, number>) =>
    giveBack && step.target !== null ? { ...add, [sprintItem.stored('receiving')]: -1 } : add;
  const owner = (add: Record<string, number>): GuardedItem => ({
    ...sprintUpdateAt(orgId, projectId, sprintId, sprint.change, { ...sprint.spelled, add }, 'sprint', sprint.also),
    ...(sprint.resource && { resource: true }),
  });
  await issueWrite({
    orgId,
    projectId,
    issues: step.moves,
    changes: step.changes,
    ctx: { completing: sprintId },
    // A target is checked even when nothing moves; at once, the backlog only receives.
    owners: planning && step.target === null ? [sprintId] : [sprintId, step.target],
    owner: (list, add) => (list === sprintId ? owner(add) : targetUpdate(orgId, projectId, list, targetAdd(add), planning)),
    tail,
  });
}

/**
 * active -> completing. Refusals: `sprint` (not active any more, or gone), `carry_over` (the target
 * is gone or not in planning any more).
 */
export async function beginCompletion(orgId: number, projectId: number, sprintId: number, plan: CompletionPlan): Promise<void> {
  // Copies of one attribute into another: assignments the declaration cannot say.
  const copies: Spelled = {
    set: [
      ...COPIED.map((c) => `${atCompletion(c)} = if_not_exists(${sprintItem.stored(c)}, :zero)`),
      // What the report shows of the sprint itself, as it stood: a rename meanwhile changes nothing.
      ...FIELDS.map((f) => `${atCompletion(f)} = if_not_exists(#f_${f}, :null)`),
    ],
    names: Object.fromEntries(FIELDS.map((f) => [`#f_${f}`, sprintItem.stored(f)])),
    values: { ':zero': 0, ':null': null },
  };
  const change: SprintChange = {
    set: { status: 'completing', completion: plan, updatedAt: plan.completed_at },
    if: { exists: true, equals: { status: 'active' } },
  };
  const items: GuardedItem[] = [{ ...sprintUpdateAt(orgId, projectId, sprintId, change, copies, 'sprint'), resource: true }];
  if (plan.carry_over_sprint_id !== null) items.push(receiving(orgId, projectId, plan.carry_over_sprint_id, 1, 'carry_over'));
  await transact(items);
}

/**
 * One batch of a completion's moves: `moves` (from `appendToList`, lib/db/issues/issues.ts), the sprint
 * (conditioned on it still being `completing`) and the target, with what the derivations keep of
 * the moves (lib/db/issues/issue-write.ts), in one transaction. With `places`: the block the moves'
 * places come from, recorded in the sprint's plan by this batch, on condition that none is there
 * yet. With `finish`: the last batch, which also finishes the completion as `finishCompletion`
 * does (the sprint completed with its report, the velocity summary, the target's `receiving` count
 * given back; at most 96 items of moves + sprint + target + velocity). Refusals: `moved` (another
 * finisher moved one of them first), `sprint` (not completing any more, or another finisher's batch
 * recorded its block first), `target`.
 */
export async function completionMoves(
  orgId: number,
  projectId: number,
  sprintId: number,
  step: CompletionMoves & {
    now: string;
    places?: CompletionPlaces | undefined;
    finish?: { plan: CompletionPlan; report: SprintReport; velocity: VelocityEntry } | undefined;
  },
): Promise<void> {
  const { places, finish } = step;
  // The block is recorded in the plan, once: a path into it, which the declaration cannot name.
  const plan = { '#plan': sprintItem.stored('completion'), '#places': 'places' };
  const unrecorded = places && { ConditionExpression: 'attribute_not_exists(#plan.#places)', ExpressionAttributeNames: plan };
  const spelled = places && !finish ? { set: ['#plan.#places = :places'], names: plan, values: { ':places': places } } : {};
  const change: SprintChange = finish
    ? completed(finish.plan, finish.report, 'completing')
    : { set: { updatedAt: step.now }, if: { equals: { status: 'completing' } } };
  const tail = finish ? [velocityPut(orgId, projectId, finish.plan.completed_at, finish.velocity)] : [];
  await movesWrite(orgId, projectId, sprintId, step, { change, spelled, also: unrecorded }, false, tail, finish !== undefined);
}

/**
 * completing -> completed: the report, the velocity summary (`VELOCITY#<completed_at>#<sprint>` in
 * the project's partition) and the target's `receiving` count, in one transaction. Refusal:
 * `sprint` (not completing any more: someone else finished it).
 */
export async function finishCompletion(
  orgId: number,
  projectId: number,
  sprintId: number,
  plan: CompletionPlan,
  report: SprintReport,
  velocity: VelocityEntry,
): Promise<void> {
  const items: GuardedItem[] = [
    sprintUpdateAt(orgId, projectId, sprintId, completed(plan, report, 'completing'), {}, 'sprint'),
    velocityPut(orgId, projectId, plan.completed_at, velocity),
  ];
  if (plan.carry_over_sprint_id !== null) items.push(receiving(orgId, projectId, plan.carry_over_sprint_id, -1, 'target'));
  await transact(items);
}

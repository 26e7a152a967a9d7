import * as completion from '../db/issues/sprint-completion.ts';
import { firstPlaceOf, type CompletionPlan, type CountersAtCompletion, type VelocityEntry } from '../model/completion.ts';

import type { SprintCounters } from '../model/sprint-counters.ts';
import { sprintCounters } from '../db/issues/counters.ts';

import { allocatePositions, appendToList, getIssueFamily, sprintIssuesWithStatus, type OpenIssue } from '../db/issues/issues.ts';

import type { PageRequest } from '../db/core/list.ts';
import * as store from '../db/projects/sprints.ts';
import { Refused, rereadOnStale, STALE } from '../db/core/transactions.ts';

import { lastCompleted } from '../db/projects/velocity.ts';

import { planActivation, planCompletion, planSprintDelete, planSprintUpdate, slugify } from '../model/sprint-plans.ts';

import type { Burndown, Sprint, SprintCreate, SprintReport, SprintUpdate, Velocity } from '../schemas/sprints.ts';
import type { SprintComplete } from '../schemas/sprint-outcomes.ts';
import { daysBetween, nextDay, now as clockNow, today } from '../model/clock.ts';

import {
  ForbiddenError,
  NotFoundError,
  type SprintBusyError,
  TransitionError,
  UnavailableError,
  ValidationError,
} from '../vocabulary/errors.ts';

import { contributionOf, negate, openStatuses, sumCounters } from '../model/derivations.ts';

import type { Principal } from '../model/principal.ts';
import { PRECONDITION, versionOf } from '../db/core/versions.ts';

import { explainRefusal, type Meanings } from './refusals.ts';

import { type SprintRefusal } from '../db/core/refusals.ts';
import { toSprint } from '../../lib/resources/projects.ts';

/** A write that raced another one is re-read and re-decided this many times before a 503. */
const ATTEMPTS = 4;
/**
 * Items a completion transaction spends on moving open issues (100 items at most: these + sprint +
 * target + velocity): three per issue (it, its search record and its number's pointer, which keeps
 * its list), one more for an assigned issue's index entry, one more for a child's record in its
 * parent's index.
 */
const MOVES_PER_STEP = 96;

/** Transaction items moving `issue` costs (lib/db/issues/issues.ts: appendToList): its own, its search record, its pointer, its assignee entry, its parent's index record. */
const moveItems = (issue: OpenIssue) =>
  3 + (issue.assignee_id === null ? 0 : 1) + (issue.parent_id === null || issue.parent_id === undefined ? 0 : 1);

/** Open issues cut into batches of at most MOVES_PER_STEP transaction items, in order. */
function moveBatches(open: OpenIssue[]): OpenIssue[][] {
  const batches: OpenIssue[][] = [];
  let current: OpenIssue[] = [];
  let used = 0;
  for (const issue of open) {
    if (used + moveItems(issue) > MOVES_PER_STEP) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(issue);
    used += moveItems(issue);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
/** Batches a completion request moves, or fails to move because another finisher did, before a 503. */
const COMPLETION_ROUNDS = 64;
/** Most days a burndown shows (a sprint left active for years still answers a bounded document). */
const BURNDOWN_MAX_DAYS = 366;

const sprintLeadMessage = 'sprint_lead_id must be an account of this organisation';

/** The sprint with its project, or 404 for whichever is missing (another organisation's included). */
async function loadSprint(caller: Principal, projectId: number, sprintId: number) {
  const { project, sprint } = await store.getSprintFamily(caller.orgId, projectId, sprintId);
  if (!project) throw new NotFoundError('Project');
  if (!sprint) throw new NotFoundError('Sprint');
  return { project, sprint };
}

/** What a refused sprint write means (a refusal `sprint_exists` is an id handed out twice: passed through). */
const sprintRefusals = {
  project: () => new NotFoundError('Project'),
  sprint: () => new NotFoundError('Sprint'),
  sprint_lead: () => new ValidationError([sprintLeadMessage]),
} satisfies Meanings<Exclude<SprintRefusal, 'sprint_exists'>>;

function refusal(err: unknown): unknown {
  return explainRefusal(err, sprintRefusals);
}

/** A project's sprints, in id order; the total comes from the project's `sprints_count`. */
export async function listSprints(caller: Principal, projectId: number, page: PageRequest) {
  const { page: result, project } = await store.listSprints(caller.orgId, projectId, page);
  if (!project) throw new NotFoundError('Project');
  return { page: result, items: result.items.map(toSprint), total: Number(project.sprints_count ?? 0) };
}

/** One sprint with its story point statistics. */
export async function getSprint(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  const { sprint } = await loadSprint(caller, projectId, sprintId);
  return toSprint(sprint);
}

/** Creates a sprint in `planning`; its slug is the kebab-case of its name. */
export async function createSprint(caller: Principal, projectId: number, input: SprintCreate): Promise<Sprint> {
  try {
    return toSprint(
      await store.insertSprint(caller.orgId, projectId, {
        name: input.name,
        slug: slugify(input.name),
        description: input.description ?? null,
        start_date: input.start_date ?? null,
        end_date: input.end_date ?? null,
        sprint_lead_id: input.sprint_lead_id ?? null,
      }),
    );
  } catch (err) {
    throw refusal(err);
  }
}

/**
 * A refusal of a write decided on a read that another write has since moved (the sprint, its dates,
 * one of its open issues or the carry-over target changed): a lost race, decided again on a fresh
 * read by `rereadOnStale`. A version the request expects (If-Match) is a 412, never a race to retry.
 */
function raced(err: unknown, reasons?: readonly string[]): unknown {
  if (!(err instanceof Refused) || err.reason === PRECONDITION) return err;
  return reasons === undefined || reasons.includes(err.reason) ? new Refused(STALE) : err;
}

/**
 * Partial update (PUT and PATCH alike). `end_date >= start_date` holds after the change, also
 * when only one of the two is sent: it is checked against the stored other one, and the write
 * is conditioned on that stored value so a concurrent change cannot slip past the check
 * (`planSprintUpdate`, lib/model/sprint-plans.ts).
 */
export async function updateSprint(
  caller: Principal,
  projectId: number,
  sprintId: number,
  changes: SprintUpdate,
): Promise<Sprint> {
  return rereadOnStale(async () => {
    const { sprint } = await loadSprint(caller, projectId, sprintId);
    const { fields, expected } = planSprintUpdate(sprint, changes);
    try {
      const updatedAt = await store.updateSprintFields(caller.orgId, projectId, sprintId, fields, expected);
      const applied = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      return toSprint({ ...sprint, ...applied, updated_at: updatedAt, version: versionOf(sprint) + 1 });
    } catch (err) {
      // `sprint`: gone, or its stored dates moved since the read: decide again on a fresh read.
      throw refusal(raced(err, ['sprint']));
    }
  }, ATTEMPTS);
}

/**
 * Only admins may delete sprints, into the organisation's trash (docs/trash.md): its issues and
 * what lives under them go with it, and so does its velocity summary, until it is restored. Existence is decided before the role: a sprint the caller cannot see answers 404 to a
 * member too, never 403. A sprint being completed, or receiving the open issues of one, cannot be
 * deleted until that ends (409).
 */
export async function deleteSprint(caller: Principal, projectId: number, sprintId: number): Promise<void> {
  if (caller.role !== 'admin') {
    const { project, sprint } = await store.getSprintFamily(caller.orgId, projectId, sprintId);
    if (!project) throw new NotFoundError('Project');
    if (!sprint) throw new NotFoundError('Sprint');
    throw new ForbiddenError('Only admins may delete sprints');
  }
  await rereadOnStale(async () => {
    const { project, sprint, retentionDays } = await store.getSprintToDelete(caller.orgId, projectId, sprintId);
    if (!project) throw new NotFoundError('Project');
    if (!sprint) throw new NotFoundError('Sprint');
    planSprintDelete(sprint);
    try {
      await store.deleteSprint(caller.orgId, projectId, sprint, { deletedBy: caller.accountId, retentionDays });
    } catch (err) {
      throw refusal(raced(err, ['sprint']));
    }
  }, ATTEMPTS);
}

/**
 * planning -> active. Only from `planning` (else 422 `{error}`); `start_date` becomes today when
 * it was not set. The write is conditional on `status = planning`, so of two concurrent
 * activations one succeeds and the other, re-reading, answers 422. The same write snapshots what
 * the sprint commits to (its report's `committed`, its burndown's start). A sprint receiving the
 * open issues of a sprint being completed waits for it: 409 (`planActivation`, lib/model/sprint-plans.ts).
 */
export async function activateSprint(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  return rereadOnStale(async () => {
    const { sprint } = await loadSprint(caller, projectId, sprintId);
    const { start } = planActivation(sprint, today());
    try {
      return toSprint(await store.setSprintActive(caller.orgId, projectId, sprintId, start, sprint.start_date, clockNow()));
    } catch (err) {
      throw raced(err);
    }
  }, ATTEMPTS);
}

/**
 * active -> completed, all or nothing at any size (docs/sprint-outcomes.md). Only from `active`
 * (else 422 `{error}`); `actual_end_date` becomes today; open issues (not done/cancelled) go to the
 * end of the carry-over target in their sprint order: the backlog by default, or a sprint of the
 * same project in `planning` (anything else is 422 `{errors}` and changes nothing).
 *
 * A completion takes more than one transaction past 96 items of moves (48 open issues, fewer with assignees or parents), so it is a protocol with a
 * visible state: one transaction turns the sprint `completing` with its plan (target, date,
 * instant) and freezes its issues and counters; batches of moves follow, their places reserved
 * once for all of them; the last batch's transaction turns it `completed` with its report. Each step is conditioned on the state it leaves, so a crash, a
 * retry or a concurrent request anywhere in between ends in the same completed sprint: a request
 * that finds the sprint `completing` finishes the stored plan. If it asked for another target it
 * then answers 409 naming the one used (`planCompletion`, lib/model/sprint-plans.ts).
 */
export async function completeSprint(
  caller: Principal,
  projectId: number,
  sprintId: number,
  input: SprintComplete = {},
): Promise<Sprint> {
  const requested = input.carry_over?.sprint_id ?? null;
  const begun = await rereadOnStale(async (): Promise<{ done: Sprint } | { conflict?: SprintBusyError | undefined }> => {
    const [family, open] = await Promise.all([
      getIssueFamily(caller.orgId, projectId, requested === null ? [sprintId] : [sprintId, requested]),
      sprintIssuesWithStatus(caller.orgId, projectId, sprintId, openStatuses),
    ]);
    if (!family.project) throw new NotFoundError('Project');
    const sprint = family.sprints.get(sprintId);
    if (!sprint) throw new NotFoundError('Sprint');
    const step = planCompletion(sprint, requested, requested === null ? undefined : family.sprints.get(requested), clockNow());
    if (step.kind === 'finish') return { conflict: step.conflict };
    try {
      // Small enough for one transaction: no intermediate state at all.
      if (moveBatches(open).length <= 1) return { done: await completeAtOnce(caller, projectId, sprint, open, step.plan) };
      await completion.beginCompletion(caller.orgId, projectId, sprintId, step.plan);
      return {};
    } catch (err) {
      // The sprint, one of its open issues or the target changed since the read (another
      // completion began, the target was activated): decide again on a fresh read.
      throw raced(err);
    }
  }, ATTEMPTS);
  if ('done' in begun) return begun.done;
  const done = await finishCompletion(caller, projectId, sprintId);
  if (begun.conflict) throw begun.conflict;
  return done;
}

/** The whole completion as one transaction, decided on what was read (see completeSprint). */
async function completeAtOnce(
  caller: Principal,
  projectId: number,
  sprint: store.SprintItem,
  open: OpenIssue[],
  plan: CompletionPlan,
): Promise<Sprint> {
  const expected = store.countersAtCompletion(sprint, false);
  const report = reportOf(sprint, expected, plan);
  const moved = sumCounters(open.map(contributionOf));
  const target = plan.carry_over_sprint_id;
  const appended = await appendToList(caller.orgId, projectId, target, open, { from: sprint.id, now: plan.completed_at });
  await completion.completeAtOnce(caller.orgId, projectId, sprint.id, {
    ...appended,
    target,
    expected,
    plan,
    report,
    velocity: velocityOf(report),
  });
  // The one transaction moved the sprint's version by one: the answer's ETag is the next read's.
  return Object.assign(toSprint({ ...sprint, version: versionOf(sprint) + 1 }), {
    ...answeredCounters(sumCounters([sprintCounters(sprint), negate(moved)])),
    status: 'completed',
    actual_end_date: plan.actual_end_date,
    report,
    updated_at: plan.completed_at,
  } satisfies Partial<Sprint>);
}

const velocityOf = (report: SprintReport): VelocityEntry => ({
  sprint_id: report.sprint_id,
  name: report.name,
  completed_at: report.completed_at,
  actual_end_date: report.actual_end_date,
  committed_story_points: report.committed.story_points,
  completed_story_points: report.completed.story_points,
});

/**
 * Finishes the completion of a `completing` sprint as planned: moves its remaining open issues in
 * batches, the last of them finishing it. Any number of callers may run this at once; each batch
 * passes for one of them only, and the result is the same whoever wins.
 *
 * The places of the moves are reserved once: the first finisher to move a batch reserves a block of
 * the project's allocator for every open issue and records it with that batch
 * (`CompletionPlan.places`); whoever moves later batches takes their places from the recorded
 * block, each issue the place of its rank in the sprint's order. A finisher whose block was not the
 * one recorded (another batch committed first) only leaves unused allocator values: places stay
 * unique, in the sprint's order, and reserved once whatever stops or runs again.
 */
async function finishCompletion(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  const { orgId } = caller;
  for (let round = 0; round < COMPLETION_ROUNDS; round++) {
    const item = await store.getSprintItem(orgId, projectId, sprintId);
    if (!item) throw new NotFoundError('Sprint');
    if (item.status === 'completed') return toSprint(item);
    const plan = item.completion;
    if (item.status !== 'completing' || !plan) {
      throw new TransitionError(`Sprint is ${item.status}: only an active sprint can be completed`);
    }
    // The open issues left: the set is frozen while the sprint is completing, and batches leave it
    // from the front, so these are the last of the block's issues.
    const open = await sprintIssuesWithStatus(orgId, projectId, sprintId, openStatuses);
    const frozen = store.countersAtCompletion(item, true);
    const report = reportOf(item, frozen, plan);
    const finish = { plan, report, velocity: velocityOf(report) };
    const target = plan.carry_over_sprint_id;
    try {
      const batches = moveBatches(open);
      if (batches.length === 0) {
        await completion.finishCompletion(orgId, projectId, sprintId, plan, report, finish.velocity);
      } else {
        const recorded = plan.places;
        const places = recorded ?? { first: await allocatePositions(orgId, projectId, open.length), count: open.length };
        let next = firstPlaceOf(places, open.length);
        // Cannot happen while the set is frozen: a block is recorded with a batch of the whole set.
        if (next === undefined) throw new Error(`Sprint ${sprintId}: more open issues than its completion reserved places for`);
        for (const [i, batch] of batches.entries()) {
          const appended = await appendToList(orgId, projectId, target, batch, {
            from: sprintId,
            now: plan.completed_at,
            firstSeq: next,
          });
          next += batch.length;
          // Leaving by completion is neither "removed" scope nor burndown progress (lib/model/derivations.ts).
          await completion.completionMoves(orgId, projectId, sprintId, {
            ...appended,
            target,
            now: plan.completed_at,
            places: recorded || i > 0 ? undefined : places,
            finish: i === batches.length - 1 ? finish : undefined,
          });
        }
      }
      // What the sprint holds once its open issues have left, from the counters frozen when the
      // completion began (this read may be older than moves another finisher made meanwhile).
      return Object.assign(toSprint(item), {
        issues_count: frozen.issuesCount - frozen.openIssuesCount,
        total_story_points: frozen.totalStoryPoints - frozen.openStoryPoints,
        completed_story_points: frozen.completedStoryPoints,
        status: 'completed',
        actual_end_date: plan.actual_end_date,
        report,
        updated_at: plan.completed_at,
      } satisfies Partial<Sprint>);
    } catch (err) {
      // Another finisher moved some of these first, recorded its block, or finished: read again
      // and go on from there.
      if (err instanceof Refused && (err.reason === 'moved' || err.reason === 'sprint')) continue;
      if (err instanceof Refused && err.reason === 'target') throw new NotFoundError('Sprint');
      throw err;
    }
  }
  throw new UnavailableError();
}

/** The counters a sprint's answer shows. */
const answeredCounters = (
  c: SprintCounters,
): { issues_count: number; total_story_points: number; completed_story_points: number } => ({
  issues_count: c.issuesCount,
  total_story_points: c.totalStoryPoints,
  completed_story_points: c.completedStoryPoints,
});

/** The report of a sprint from its counters and fields `c` as its completion fixed them. */
function reportOf(item: store.SprintItem, c: CountersAtCompletion, plan: CompletionPlan): SprintReport {
  const tally = (issues: number, points: number) => ({ issues, story_points: points });
  const committed = store.sprintItem.decode(item);
  return {
    sprint_id: item.id,
    name: c.name ?? item.name,
    start_date: c.startDate,
    end_date: c.endDate,
    activated_at: c.activatedAt,
    completed_at: plan.completed_at,
    actual_end_date: plan.actual_end_date,
    committed: tally(committed.committedIssues, committed.committedPoints),
    added: tally(c.addedIssues, c.addedPoints),
    removed: tally(c.removedIssues, c.removedPoints),
    completed: tally(c.doneIssuesCount, c.completedStoryPoints),
    cancelled: tally(
      c.issuesCount - c.doneIssuesCount - c.openIssuesCount,
      c.totalStoryPoints - c.completedStoryPoints - c.openStoryPoints,
    ),
    carried_over: tally(c.openIssuesCount, c.openStoryPoints),
    carried_over_to: { sprint_id: plan.carry_over_sprint_id },
  };
}

/**
 * Where a sprint stands, from its counters alone (one BatchGet, whatever its size): issues and
 * story points open, done and cancelled.
 */
export async function sprintSummary(caller: Principal, projectId: number, sprintId: number) {
  const { sprint } = await loadSprint(caller, projectId, sprintId);
  const c = sprintCounters(sprint);
  const tally = (issues: number, points: number) => ({ issues, story_points: points });
  return {
    project_id: projectId,
    sprint_id: sprintId,
    status: sprint.status,
    ...answeredCounters(c),
    open: tally(c.openIssuesCount, c.openStoryPoints),
    done: tally(c.doneIssuesCount, c.completedStoryPoints),
    cancelled: tally(
      c.issuesCount - c.openIssuesCount - c.doneIssuesCount,
      c.totalStoryPoints - c.openStoryPoints - c.completedStoryPoints,
    ),
    percent_done: c.totalStoryPoints > 0 ? Math.floor((c.completedStoryPoints * 100) / c.totalStoryPoints) : 0,
  };
}

/** The report frozen at completion; 404 until the sprint is completed. */
export async function getSprintReport(caller: Principal, projectId: number, sprintId: number): Promise<SprintReport> {
  const { sprint } = await loadSprint(caller, projectId, sprintId);
  if (sprint.status !== 'completed' || !sprint.report) {
    throw new NotFoundError('Report', `the sprint is ${sprint.status}; it has one once completed`);
  }
  return sprint.report;
}

/** The last `count` completed sprints of a project (most recent first) and their averages. */
export async function getVelocity(caller: Principal, projectId: number, count: number): Promise<Velocity> {
  const { project, entries } = await lastCompleted(caller.orgId, projectId, count);
  if (!project) throw new NotFoundError('Project');
  const sprints = entries;
  const average = (f: (s: (typeof sprints)[number]) => number) =>
    sprints.length ? Math.round((sprints.reduce((a, s) => a + f(s), 0) / sprints.length) * 100) / 100 : null;
  return {
    project_id: projectId,
    sprints,
    average_committed_story_points: average((s) => s.committed_story_points),
    average_completed_story_points: average((s) => s.completed_story_points),
  };
}

/**
 * Remaining open story points at the end of each UTC day, from the sprint's stored per-day changes
 * (never from its issues): the open points at activation plus every change since, day by day; a
 * day without a change carries the previous value. Days before activation show the committed
 * value; days not reached yet are null; a completed sprint ends on its completion day with what it
 * carried over. 404 while the sprint is in planning.
 */
export async function getBurndown(caller: Principal, projectId: number, sprintId: number): Promise<Burndown> {
  const { sprint } = await loadSprint(caller, projectId, sprintId);
  const { activatedOn, burndownBase: base } = store.sprintItem.decode(sprint);
  if (sprint.status === 'planning' || !activatedOn) {
    throw new NotFoundError('Burndown', 'the sprint is in planning');
  }
  const changes = store.sprintBurndown(sprint);
  const completedOn = sprint.status === 'completed' ? (sprint.actual_end_date ?? sprint.report?.actual_end_date) : undefined;
  const lastKnown = completedOn ?? today();
  const first = sprint.start_date ?? activatedOn;
  const last = sprint.end_date && sprint.end_date > lastKnown ? sprint.end_date : lastKnown;
  const span = sprint.end_date ? daysBetween(first, sprint.end_date) : undefined;

  // Changes on days before the first one shown still count towards it.
  let remaining = base;
  for (const [day, delta] of changes) if (day >= activatedOn && day < first) remaining += delta;
  const days: Burndown['days'] = [];
  for (let day = first, i = 0; day <= last && i < BURNDOWN_MAX_DAYS; day = nextDay(day), i++) {
    if (day >= activatedOn) remaining += changes.get(day) ?? 0;
    let value: number | null = day > lastKnown ? null : remaining;
    if (completedOn && day === completedOn) value = sprint.report?.carried_over.story_points ?? remaining;
    const ideal =
      span === undefined ? null : span <= 0 ? (i >= span ? 0 : base) : Math.max(0, Math.round(base * (1 - i / span) * 100) / 100);
    days.push({ date: day, remaining_story_points: value, ideal_story_points: ideal });
  }
  return {
    sprint_id: sprintId,
    status: sprint.status,
    start_date: first,
    end_date: days.at(-1)?.date ?? first,
    committed_story_points: base,
    days,
  };
}

import { sprintIssuesWithStatus } from '../db/issues.ts';
import type { PageRequest } from '../db/list.ts';
import * as store from '../db/sprints.ts';
import { Refused } from '../db/transactions.ts';
import { endBeforeStartMessage } from '../schemas/messages.ts';
import type { Sprint, SprintCreate, SprintUpdate } from '../schemas/sprints.ts';
import { ForbiddenError, NotFoundError, TransitionError, UnavailableError, ValidationError } from './errors.ts';
import { contributionOf, negate, openStatuses, sumCounters } from './issues.ts';
import { appendToEnd } from './positions.ts';
import type { Principal } from './principal.ts';

/** A write that raced another one is re-read and re-decided this many times before a 503. */
const ATTEMPTS = 4;
/** Open issues moved per completion transaction (100 items at most: these + sprint + project). */
const MOVES_PER_STEP = 96;

const sprintLeadMessage = 'sprint_lead_id must be an account of this organisation';

/** "Today" as DESIGN.md defines it: the UTC calendar date. */
export const today = () => new Date().toISOString().slice(0, 10);

/** Kebab-case of a name: "Sprint 12: Checkout!" -> "sprint-12-checkout". Accents are folded. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'sprint';
}

/** The sprint with its project, or 404 for whichever is missing (another organisation's included). */
async function loadSprint(caller: Principal, projectId: number, sprintId: number) {
  const { project, sprint } = await store.getSprintFamily(caller.orgId, projectId, sprintId);
  if (!project) throw new NotFoundError('Project');
  if (!sprint) throw new NotFoundError('Sprint');
  return { project, sprint };
}

function refusal(err: unknown): unknown {
  if (!(err instanceof Refused)) return err;
  if (err.reason === 'project') return new NotFoundError('Project');
  if (err.reason === 'sprint') return new NotFoundError('Sprint');
  if (err.reason === 'sprint_lead') return new ValidationError([sprintLeadMessage]);
  return err;
}

/** A project's sprints, in id order; the total comes from the project's `sprints_count`. */
export async function listSprints(caller: Principal, projectId: number, page: PageRequest) {
  const { page: result, project } = await store.listSprints(caller.orgId, projectId, page);
  if (!project) throw new NotFoundError('Project');
  return { page: result, items: result.items.map(store.toSprint), total: Number(project.sprints_count ?? 0) };
}

/** One sprint with its story point statistics. */
export async function getSprint(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  const { sprint } = await loadSprint(caller, projectId, sprintId);
  return store.toSprint(sprint);
}

/** Creates a sprint in `planning`; its slug is the kebab-case of its name. */
export async function createSprint(caller: Principal, projectId: number, input: SprintCreate): Promise<Sprint> {
  try {
    return await store.insertSprint(caller.orgId, projectId, {
      name: input.name,
      slug: slugify(input.name),
      description: input.description ?? null,
      start_date: input.start_date ?? null,
      end_date: input.end_date ?? null,
      sprint_lead_id: input.sprint_lead_id ?? null,
    });
  } catch (err) {
    throw refusal(err);
  }
}

/**
 * Partial update (PUT and PATCH alike). `end_date >= start_date` holds after the change, also
 * when only one of the two is sent: it is checked against the stored other one, and the write
 * is conditioned on that stored value so a concurrent change cannot slip past the check.
 */
export async function updateSprint(
  caller: Principal,
  projectId: number,
  sprintId: number,
  changes: SprintUpdate,
): Promise<Sprint> {
  for (let attempt = 1; ; attempt++) {
    const { sprint } = await loadSprint(caller, projectId, sprintId);
    const start = changes.start_date !== undefined ? changes.start_date : sprint.start_date;
    const end = changes.end_date !== undefined ? changes.end_date : sprint.end_date;
    if (start && end && end < start) throw new ValidationError([endBeforeStartMessage]);
    const expected: Partial<Record<'start_date' | 'end_date', string | null>> = {};
    if (changes.start_date !== undefined && changes.end_date === undefined) expected.end_date = sprint.end_date;
    if (changes.end_date !== undefined && changes.start_date === undefined) expected.start_date = sprint.start_date;
    const fields: Partial<store.SprintFields> = {
      name: changes.name,
      slug: changes.name === undefined ? undefined : slugify(changes.name),
      description: changes.description,
      start_date: changes.start_date,
      end_date: changes.end_date,
      sprint_lead_id: changes.sprint_lead_id,
    };
    try {
      const updatedAt = await store.updateSprintFields(caller.orgId, projectId, sprintId, fields, expected);
      const applied = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      return store.toSprint({ ...sprint, ...applied, updated_at: updatedAt });
    } catch (err) {
      // `sprint`: gone, or its stored dates moved since the read: decide again on a fresh read.
      if (err instanceof Refused && err.reason === 'sprint' && attempt < ATTEMPTS) continue;
      throw refusal(err);
    }
  }
}

/** Only admins may delete sprints (SPEC.md). Its issues and their comments go with it. */
export async function deleteSprint(caller: Principal, projectId: number, sprintId: number): Promise<void> {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may delete sprints');
  try {
    await store.deleteSprint(caller.orgId, projectId, sprintId);
  } catch (err) {
    throw refusal(err);
  }
}

/**
 * planning -> active. Only from `planning` (else 422 `{error}`); `start_date` becomes today when
 * it was not set. The write is conditional on `status = planning`, so of two concurrent
 * activations one succeeds and the other, re-reading, answers 422.
 */
export async function activateSprint(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  for (let attempt = 1; ; attempt++) {
    const { sprint } = await loadSprint(caller, projectId, sprintId);
    if (sprint.status !== 'planning') {
      throw new TransitionError(`Sprint is ${sprint.status}: only a sprint in planning can be activated`);
    }
    const start = sprint.start_date ?? today();
    if (sprint.end_date && sprint.end_date < start) {
      throw new TransitionError(
        `Sprint cannot be activated: its end_date ${sprint.end_date} is before its start (${start}); change the dates first`,
      );
    }
    try {
      return store.toSprint(await store.setSprintActive(caller.orgId, projectId, sprintId, start, sprint.start_date));
    } catch (err) {
      if (err instanceof Refused && attempt < ATTEMPTS) continue;
      if (err instanceof Refused) throw new UnavailableError();
      throw err;
    }
  }
}

/**
 * active -> completed. Only from `active` (else 422 `{error}`); `actual_end_date` becomes today;
 * open issues (not done/cancelled) return to the project backlog, appended at its end in their
 * sprint order, with every counter moved in the same transaction as the issues it counts.
 *
 * Cost in DynamoDB calls, for n open issues: 1 BatchGet (sprint + project) in parallel with
 * ceil(size of the sprint's issues / 1 MB) Queries, then ceil(max(n, 1) / 96) transactions:
 * 3 calls (4 with the authorizer) up to 96 open issues in a sprint under 1 MB. Backlog positions
 * are reserved inside the first transaction (conditional on the project's `position_seq`), not by
 * a separate call. Each transaction leaves exact counters behind; only the last changes the status
 * and it requires that no open issue is left, so the sprint is never `completed` with open issues
 * and a completion interrupted half-way is simply finished by the next call. Every step requires
 * `status = active`: two concurrent completions cannot both succeed.
 */
export async function completeSprint(caller: Principal, projectId: number, sprintId: number): Promise<Sprint> {
  for (let attempt = 1; ; attempt++) {
    const [{ project, sprint }, open] = await Promise.all([
      store.getSprintFamily(caller.orgId, projectId, sprintId),
      sprintIssuesWithStatus(caller.orgId, projectId, sprintId, openStatuses),
    ]);
    if (!project) throw new NotFoundError('Project');
    if (!sprint) throw new NotFoundError('Sprint');
    if (sprint.status !== 'active') {
      throw new TransitionError(`Sprint is ${sprint.status}: only an active sprint can be completed`);
    }
    const seq = project.position_seq;
    const base = Number(seq ?? 0);
    const steps: (typeof open)[] = [];
    for (let i = 0; i < open.length; i += MOVES_PER_STEP) steps.push(open.slice(i, i + MOVES_PER_STEP));
    if (steps.length === 0) steps.push([]);
    const now = new Date().toISOString();
    const actualEndDate = today();
    let counters: store.SprintCounters = {
      issues_count: sprint.issues_count,
      total_story_points: sprint.total_story_points,
      completed_story_points: sprint.completed_story_points,
      open_issues_count: sprint.open_issues_count,
    };
    try {
      let offset = 0;
      for (const [index, issues] of steps.entries()) {
        const sprintDelta = negate(sumCounters(issues.map(contributionOf)));
        const appended = appendToEnd(issues, base + offset + 1);
        await store.completionStep(caller.orgId, projectId, sprintId, {
          moves: issues.map((issue, i) => ({ id: issue.id, rev: issue.rev, position: appended.moves[i]?.to as number })),
          sprintRank: appended.leaving,
          backlogRank: appended.joining,
          sprintDelta,
          now,
          reserve: index === 0 && open.length > 0 ? { from: seq, to: base + open.length } : undefined,
          finish: index === steps.length - 1 ? { actualEndDate } : undefined,
        });
        offset += issues.length;
        counters = sumCounters([counters, sprintDelta]);
      }
      return store.toSprint({ ...sprint, ...counters, status: 'completed', actual_end_date: actualEndDate, updated_at: now });
    } catch (err) {
      // Something moved under us (an issue changed, an issue was added, the reservation raced a
      // create, or another completion finished): re-read and decide again. Moves already made are
      // consistent on their own.
      if (err instanceof Refused && attempt < ATTEMPTS) continue;
      if (err instanceof Refused) throw new UnavailableError();
      throw err;
    }
  }
}

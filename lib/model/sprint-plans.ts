import { SprintBusyError, TransitionError, ValidationError } from '../vocabulary/errors.ts';
import { endBeforeStartMessage } from '../vocabulary/messages.ts';
import type { SprintStatus } from '../schemas/sprints.ts';
import type { CompletionPlan } from './completion.ts';

/**
 * The decisions of the sprint use cases (lib/services/sprints.ts), each a pure function of what was
 * read: the use case reads, asks its plan here, and writes what the plan says, inside the one retry
 * of a lost race (`rereadOnStale`, lib/db/core/transactions.ts). A refusal is thrown as the typed error
 * the client sees.
 */

/** What a plan reads of a sprint. */
export interface SprintAsRead {
  status: SprintStatus;
  start_date: string | null;
  end_date: string | null;
  /** Completions carrying issues into this sprint right now. */
  receiving?: number | undefined;
}

/** The fields a sprint update may change; `undefined`: unchanged. */
export interface SprintChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  start_date?: string | null | undefined;
  end_date?: string | null | undefined;
  sprint_lead_id?: number | null | undefined;
}

/** A sprint update to write: the fields, and the stored dates the write is conditioned on. */
export interface SprintUpdatePlan {
  fields: SprintChanges & { slug?: string | undefined };
  expected: Partial<Record<'start_date' | 'end_date', string | null>>;
}

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

/**
 * An update of `sprint`: `end_date >= start_date` holds after it, also when only one of the two is
 * sent (checked against the stored other one, which the write then expects unchanged, so a
 * concurrent change cannot slip past the check). 422 otherwise.
 */
export function planSprintUpdate(sprint: SprintAsRead, changes: SprintChanges): SprintUpdatePlan {
  const start = changes.start_date !== undefined ? changes.start_date : sprint.start_date;
  const end = changes.end_date !== undefined ? changes.end_date : sprint.end_date;
  if (start && end && end < start) throw new ValidationError([endBeforeStartMessage]);
  const expected: SprintUpdatePlan['expected'] = {};
  if (changes.start_date !== undefined && changes.end_date === undefined) expected.end_date = sprint.end_date;
  if (changes.end_date !== undefined && changes.start_date === undefined) expected.start_date = sprint.start_date;
  return {
    fields: {
      name: changes.name,
      slug: changes.name === undefined ? undefined : slugify(changes.name),
      description: changes.description,
      start_date: changes.start_date,
      end_date: changes.end_date,
      sprint_lead_id: changes.sprint_lead_id,
    },
    expected,
  };
}

/** A sprint being completed, or receiving the open issues of one, cannot be deleted until that ends (409). */
export function planSprintDelete(sprint: SprintAsRead): void {
  if (sprint.status === 'completing' || Number(sprint.receiving ?? 0) > 0) throw new SprintBusyError();
}

/**
 * planning -> active: the start date the activation writes (the stored one, or `today` when none).
 * Only from `planning` (422), never while receiving a completion's issues (409), never past the
 * sprint's end date (422).
 */
export function planActivation(sprint: SprintAsRead, today: string): { start: string } {
  if (sprint.status !== 'planning') {
    throw new TransitionError(`Sprint is ${sprint.status}: only a sprint in planning can be activated`);
  }
  if (Number(sprint.receiving ?? 0) > 0) {
    throw new SprintBusyError('The sprint is receiving the open issues of a sprint being completed');
  }
  const start = sprint.start_date ?? today;
  if (sprint.end_date && sprint.end_date < start) {
    throw new TransitionError(
      `Sprint cannot be activated: its end_date ${sprint.end_date} is before its start (${start}); change the dates first`,
    );
  }
  return { start };
}

const describeTarget = (sprintId: number | null) => (sprintId === null ? 'the backlog' : `sprint ${sprintId}`);

/** What a completion request does, decided on the sprint and its carry-over target as read. */
export type CompletionStep =
  /** The sprint is already completing: finish the stored plan; `conflict` is the 409 to answer then, if any. */
  | { kind: 'finish'; conflict?: SprintBusyError | undefined }
  /** Begin the completion with `plan`. */
  | { kind: 'begin'; plan: CompletionPlan };

/**
 * A completion request of sprint `sprintId`, carrying its open issues over to `requested` (a sprint
 * of the project, `null` for the backlog), read as `sprint` and `target`, at instant `at`. A sprint
 * already `completing` is finished as stored (409 after it when it used another target); only an
 * `active` sprint begins (422); the target must be another sprint in `planning` (422).
 */
export function planCompletion(
  sprint: SprintAsRead & { id: number; completion?: CompletionPlan | undefined },
  requested: number | null,
  target: SprintAsRead | undefined,
  at: string,
): CompletionStep {
  if (sprint.status === 'completing' && sprint.completion) {
    const used = sprint.completion.carry_over_sprint_id;
    return used === requested
      ? { kind: 'finish' }
      : {
          kind: 'finish',
          conflict: new SprintBusyError(`The sprint was completed with its open issues carried over to ${describeTarget(used)}`),
        };
  }
  if (sprint.status !== 'active') {
    throw new TransitionError(`Sprint is ${sprint.status}: only an active sprint can be completed`);
  }
  if (requested !== null && (requested === sprint.id || !target || target.status !== 'planning')) {
    throw new ValidationError([carryOverMessage]);
  }
  return { kind: 'begin', plan: { carry_over_sprint_id: requested, completed_at: at, actual_end_date: at.slice(0, 10) } };
}

export const carryOverMessage = 'carry_over.sprint_id must be another sprint of this project in planning';

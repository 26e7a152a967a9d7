import { type ScopeCounterName, scopeCounterNames, type SprintCounterName, sprintCounterNames } from './sprint-counters.ts';

/**
 * What a sprint's completion freezes when it begins: the counters and fields its report is made
 * from (lib/services/sprints.ts), copied on the sprint (lib/db/issues/sprint-completion.ts), so a change
 * meanwhile (a rename, a move another finisher made) changes nothing of the report.
 */

/** The counters copied. */
export const COPIED: (SprintCounterName | ScopeCounterName)[] = [...sprintCounterNames, ...scopeCounterNames];

/** The fields of the sprint itself copied. */
export const FIELDS = ['name', 'startDate', 'endDate', 'activatedAt'] as const;

/** The counters and fields of a sprint as they stood when its completion began (or as they stand now). */
export type CountersAtCompletion = Record<(typeof COPIED)[number], number> & Record<(typeof FIELDS)[number], string | null>;

/** What the completion of a sprint decided when it started; whoever finishes it follows this. */
export interface CompletionPlan {
  /** Where the open issues go: a sprint of the project, or null for the backlog. */
  carry_over_sprint_id: number | null;
  completed_at: string;
  actual_end_date: string;
  /**
   * The places of its moves, reserved once for all of them: `count` consecutive values of the
   * project's position allocator from `first` on, the i-th open issue (in the sprint's order, as
   * they stood when the first batch moved) taking `first + i`. Recorded by the first batch of moves
   * (lib/db/issues/sprint-completion.ts); absent before it.
   */
  places?: CompletionPlaces | undefined;
}

/** A completion's block of places (`CompletionPlan.places`). */
export interface CompletionPlaces {
  first: number;
  count: number;
}

/**
 * The allocator value of the first of the `remaining` open issues of a completion whose block is
 * `places`: the moves so far took the block's first values, in order. Undefined when more remain
 * than the block holds (it cannot be the block of these issues).
 */
export function firstPlaceOf(places: CompletionPlaces, remaining: number): number | undefined {
  return remaining > places.count ? undefined : places.first + places.count - remaining;
}

/** What the velocity endpoint lists of a completed sprint (written once, at completion). */
export interface VelocityEntry {
  sprint_id: number;
  name: string;
  completed_at: string;
  actual_end_date: string;
  committed_story_points: number;
  completed_story_points: number;
}

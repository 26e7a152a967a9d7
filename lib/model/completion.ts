import type { SprintCounters } from './sprint-counters.ts';

/**
 * What a sprint's completion freezes when it begins: the counters and fields its report is made
 * from (lib/services/sprints.ts), copied on the sprint as `at_completion_*` (lib/db/completion.ts),
 * so a change meanwhile (a rename, a move another finisher made) changes nothing of the report.
 */

/** The counters copied. */
export const COPIED: (keyof SprintCounters | 'added_issues' | 'added_points' | 'removed_issues' | 'removed_points')[] = [
  'issues_count',
  'total_story_points',
  'completed_story_points',
  'open_issues_count',
  'open_story_points',
  'done_issues_count',
  'added_issues',
  'added_points',
  'removed_issues',
  'removed_points',
];

export const FIELDS = ['name', 'start_date', 'end_date', 'activated_at'] as const;

/** The counters and fields of a sprint as they stood when its completion began. */
export type CountersAtCompletion = Record<(typeof COPIED)[number], number> & Record<(typeof FIELDS)[number], string | null>;

/** The counters and fields copied when the completion began (`at_completion_*`), or (`prefix` '') as they are now. */
export function countersAtCompletion(item: Record<string, unknown>, prefix = 'at_completion_'): CountersAtCompletion {
  return {
    ...Object.fromEntries(COPIED.map((c) => [c, Number(item[`${prefix}${c}`] ?? 0)])),
    ...Object.fromEntries(FIELDS.map((f) => [f, (item[`${prefix}${f}`] as string | null | undefined) ?? null])),
  } as CountersAtCompletion;
}

/** What the completion of a sprint decided when it started; whoever finishes it follows this. */
export interface CompletionPlan {
  /** Where the open issues go: a sprint of the project, or null for the backlog. */
  carry_over_sprint_id: number | null;
  completed_at: string;
  actual_end_date: string;
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

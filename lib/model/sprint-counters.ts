/**
 * The counters a sprint keeps over its issues and its history, by name: what they are, and where
 * a day's burndown change is kept. What a change of an issue means for them is declared in
 * lib/model/derivations.ts; lib/db only maps them to attributes and expressions.
 */

/** Counters a sprint keeps over its issues; they move in the same transaction as the issues. */
export type SprintCounterName =
  | 'issues_count'
  | 'total_story_points'
  | 'completed_story_points'
  | 'open_issues_count'
  | 'open_story_points'
  | 'done_issues_count';
export type SprintCounters = Record<SprintCounterName, number>;

/** The counters of a sprint without issues (a new sprint's, or the sum of none). */
export const noCounters: Readonly<SprintCounters> = {
  issues_count: 0,
  total_story_points: 0,
  completed_story_points: 0,
  open_issues_count: 0,
  open_story_points: 0,
  done_issues_count: 0,
};

/** Counters of moves in and out of a sprint, reset when it is activated (its report's added/removed). */
export const scopeCounters = ['added_issues', 'added_points', 'removed_issues', 'removed_points'] as const;

/**
 * The attribute of a sprint that holds the change of its open story points on one UTC day
 * (`burndown_YYYYMMDD`, top level so that writes can `ADD` to it without the attribute existing).
 */
export const burndownAttribute = (day: string) => `burndown_${day.replaceAll('-', '')}`;

/** The per-day changes of open story points a sprint item holds, by YYYY-MM-DD. */
export function burndownChanges(item: Record<string, unknown>): Map<string, number> {
  const changes = new Map<string, number>();
  for (const [k, v] of Object.entries(item)) {
    const m = /^burndown_(\d{4})(\d{2})(\d{2})$/.exec(k);
    if (m) changes.set(`${m[1]}-${m[2]}-${m[3]}`, Number(v));
  }
  return changes;
}

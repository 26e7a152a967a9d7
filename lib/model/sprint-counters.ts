/**
 * The counters a list's owner keeps over its issues and its history, by the names the model gives
 * them: what they are, and where a day's burndown change is kept. What a change of an issue means
 * for them is declared in lib/model/derivations.ts; lib/db maps each name to the attribute it is
 * stored under (lib/db/counters.ts) and writes the expressions.
 */

/** Counters a sprint keeps over its issues; they move in the same transaction as the issues. */
export type SprintCounterName =
  'issuesCount' | 'totalStoryPoints' | 'completedStoryPoints' | 'openIssuesCount' | 'openStoryPoints' | 'doneIssuesCount';
export type SprintCounters = Record<SprintCounterName, number>;
export const sprintCounterNames = [
  'issuesCount',
  'totalStoryPoints',
  'completedStoryPoints',
  'openIssuesCount',
  'openStoryPoints',
  'doneIssuesCount',
] as const satisfies readonly SprintCounterName[];

/** The counters of a sprint without issues (a new sprint's, or the sum of none). */
export const noCounters: Readonly<SprintCounters> = {
  issuesCount: 0,
  totalStoryPoints: 0,
  completedStoryPoints: 0,
  openIssuesCount: 0,
  openStoryPoints: 0,
  doneIssuesCount: 0,
};

/** Counters of moves in and out of a sprint since its activation (its report's added and removed scope). */
export type ScopeCounterName = 'addedIssues' | 'addedPoints' | 'removedIssues' | 'removedPoints';
export const scopeCounterNames = [
  'addedIssues',
  'addedPoints',
  'removedIssues',
  'removedPoints',
] as const satisfies readonly ScopeCounterName[];

/** The backlog's one counter, kept on its project: how many issues it holds. */
export const BACKLOG_COUNT = 'backlogCount';

/** Every counter a list's owner keeps by a declared name (its rank blocks, columns and burndown days are named by pattern). */
export type ListCounterName = SprintCounterName | ScopeCounterName | typeof BACKLOG_COUNT;

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

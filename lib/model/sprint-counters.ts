/**
 * The counters a list's owner keeps over its issues and its history, by the names the model gives
 * them: what they are, and how a day's burndown change is named. What a change of an issue means
 * for them is declared in lib/model/derivations.ts; lib/db maps each name to the attribute it is
 * stored under (lib/db/issues/counters.ts) and writes the expressions.
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

/** Prefix of a sprint's counters of one UTC day's change of its open story points (its burndown). */
export const BURNDOWN_PREFIX = 'burndown@';

/**
 * The counter of a sprint that adds up the change of its open story points on one UTC day
 * (`burndown@YYYY-MM-DD`; lib/db/projects/sprints.ts says what it is stored under).
 */
export const burndownCounter = (day: string) => `${BURNDOWN_PREFIX}${day}`;

/** The per-day changes of open story points among a sprint's counters (by the model's names), by YYYY-MM-DD. */
export function burndownChanges(counters: Readonly<Record<string, number>>): Map<string, number> {
  const changes = new Map<string, number>();
  for (const [name, change] of Object.entries(counters))
    if (name.startsWith(BURNDOWN_PREFIX)) changes.set(name.slice(BURNDOWN_PREFIX.length), change);
  return changes;
}

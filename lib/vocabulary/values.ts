/**
 * Values the schemas accept, apart from the zod schemas that check them (lib/schemas/issues.ts,
 * lib/schemas/common.ts), as lib/vocabulary/label-limits.ts is: the selection evaluator reads them
 * (lib/vocabulary/selection.ts), and the change feed, which evaluates webhook filters, must
 * not load zod for them.
 */

export const issueStatuses = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'] as const;
export const issuePriorities = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export const issueTypes = ['task', 'story', 'bug', 'epic'] as const;
/** A priority, as the schemas' `IssuePriority` (lib/schemas/issues.ts) accepts it. */
export type IssuePriority = (typeof issuePriorities)[number];

/** The `sub_issues_summary` of an issue without sub-issues, as a new issue answers it. */
export const noSubIssues = { total: 0, done: 0, story_points: 0, completed_story_points: 0 } as const;

/** A real calendar date, YYYY-MM-DD. */
export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(`${v}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
}

/** Whether `timeZone` is an IANA time zone the runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

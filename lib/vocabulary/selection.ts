/**
 * The words of the selection grammar (docs/search.md), shared by its parser, printer, schema and
 * evaluator: qualifier names, the values they take, the bounds of a query, and the few lexical
 * rules (what separates terms, what a date and a relative time look like) that must read the same
 * in every one of them.
 */
// Not from the zod schemas: the change feed evaluates webhook filters without loading zod.
import { isCalendarDate, issuePriorities, issueStatuses, issueTypes, type IssuePriority } from './values.ts';

// Priorities lowest first: the order `priority:>=high` and `sort:priority-desc` use.
export { issuePriorities, issueStatuses, issueTypes };

/** What `is:` tells: the status category (open = backlog, todo, in_progress; closed = done, cancelled) or a blocker. */
export const isValues = ['open', 'closed', 'blocked'] as const;

/** What `has:` tells: the issue has a linked pull request (in any state). */
export const hasValues = ['pr'] as const;

/**
 * The states of a linked pull request that `pr:` takes (as a link states them, lib/schemas/github.ts:
 * `linkStates`): the issue has a pull request in one of them.
 */
export const pullRequestStates = ['open', 'draft', 'merged', 'closed'] as const;
export type PullRequestState = (typeof pullRequestStates)[number];

/** Fields that `no:` takes: the issue has no value there (for labels: none at all). */
export const noFields = ['assignee', 'label', 'parent', 'points', 'due', 'sprint'] as const;

/** Fields `sort:` takes, each with `-asc` or `-desc`. */
export const sortFields = ['created', 'updated', 'priority', 'due', 'points'] as const;
export type SortField = (typeof sortFields)[number];
export const sortOrders = ['asc', 'desc'] as const;

/** Every qualifier, in the order the docs list them. */
export const qualifiers = [
  'project',
  'sprint',
  'status',
  'category',
  'is',
  'assignee',
  'author',
  'label',
  'priority',
  'type',
  'parent',
  'points',
  'created',
  'updated',
  'due',
  'has',
  'pr',
  'no',
  'sort',
] as const;
export type Qualifier = (typeof qualifiers)[number];

/**
 * Bounds of one query: its length in characters (Unicode code points), its conditions on a field
 * (`sort:` not counted, however they are grouped), and how deeply its groups nest (a group is an
 * AND or an OR of conditions: parentheses, or terms joined by OR; GitHub's search allows 5 levels).
 */
export const selectionLimits = { characters: 1000, terms: 50, depth: 5 } as const;

/**
 * The operators, as GitHub's advanced search spells them: upper case only, so that a title word
 * in lower case (`or`, `not`) stays text; quoted (`"OR"`), an operator is text too.
 */
export const operators = ['AND', 'OR', 'NOT'] as const;
export type Operator = (typeof operators)[number];

/** Characters a bare word or value cannot hold: they open and close groups. */
export const groupCharacters = '()';

/** Relative times: a sign, 1 to 4 digits and a unit (h hours, d days, w weeks, m months of 30 days). */
export const relativePattern = /^([+-])(\d{1,4})([hdwm])$/;
const unitMs = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000 } as const;

/** A relative time (`-7d`) as milliseconds from now; undefined for anything else. */
export function relativeOffsetMs(value: string): number | undefined {
  const m = relativePattern.exec(value);
  if (!m) return undefined;
  const [, sign, amount, unit] = m as unknown as [string, '+' | '-', string, keyof typeof unitMs];
  return (sign === '-' ? -1 : 1) * Number(amount) * unitMs[unit];
}

export const isRelative = (value: string) => relativePattern.test(value);
export const isDateValue = (value: string) => isCalendarDate(value) || isRelative(value);

/**
 * Whitespace between terms: what JavaScript's `\s` matches (spaces, tabs, line breaks, Unicode
 * spaces). The printer quotes any value holding one, so both sides must agree on the same set.
 */
export const isSpace = (ch: string) => /^\s$/u.test(ch);

/** The place of a priority in `issuePriorities` (none = 0 ... urgent = 4). */
export const priorityRank = (p: IssuePriority) => issuePriorities.indexOf(p);

/**
 * Whether a range `{gte: a, lte: b}` can match nothing whatever the time: for numbers, priorities
 * and calendar dates, a start after its end. Relative times and mixed bounds move with "now" and
 * are never called empty.
 */
export function rangeIsEmpty(gte: unknown, lte: unknown): boolean {
  if (typeof gte === 'number' && typeof lte === 'number') return gte > lte;
  if (typeof gte !== 'string' || typeof lte !== 'string') return false;
  const pg = issuePriorities.indexOf(gte as IssuePriority);
  const pl = issuePriorities.indexOf(lte as IssuePriority);
  if (pg >= 0 && pl >= 0) return pg > pl;
  if (isCalendarDate(gte) && isCalendarDate(lte)) return gte > lte;
  return false;
}

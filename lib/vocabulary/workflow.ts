import { issueStatuses } from './values.ts';

/**
 * The words of a project's workflow (docs/workflows.md), apart from the zod schemas
 * (lib/schemas/states.ts): the data layer, the rules and the change feed read them without zod.
 *
 * Every state is in one of five fixed categories, named after the seed's statuses: `backlog`,
 * `todo` (unstarted), `in_progress` (started), `done` (completed), `cancelled`. What meant "open",
 * "started" or "done" means the category, whatever a team names its states.
 */
export const stateCategories = issueStatuses;
export type StateCategory = (typeof stateCategories)[number];

export const stateLimits = {
  name: 50,
  perProject: 50,
  wipLimit: 10_000,
  order: 1_000_000,
} as const;

/** The colour of each category's state in a new project, and of a state created without one. */
export const defaultStateColors: Record<StateCategory, string> = {
  backlog: '#9ca3af',
  todo: '#6b7280',
  in_progress: '#f59e0b',
  done: '#10b981',
  cancelled: '#ef4444',
};

/**
 * The key a state's name answers as `status`: lower case, every run of other characters than
 * letters and digits one `_` ("In review" -> `in_review`). Names are unique under it, so `status`
 * names one state; a new project's states are named after their categories, so they answer as the
 * seed's statuses did.
 */
export function statusKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * The words a search names a category by (`category:`): its own name, and the names Linear gives
 * the same categories (`unstarted`, `started`, `completed`, `canceled`).
 */
export const categoryWords: Readonly<Record<string, StateCategory>> = {
  backlog: 'backlog',
  todo: 'todo',
  unstarted: 'todo',
  in_progress: 'in_progress',
  started: 'in_progress',
  done: 'done',
  completed: 'done',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

/** The fields a state may require of an issue entering it. */
export const requiredFields = ['assignee_id', 'story_points', 'due_date', 'description'] as const;
export type RequiredField = (typeof requiredFields)[number];

/** What the refusal of a status a write may not name starts with (lib/schemas/issues.ts; lib/http/stack.ts looks for it). */
export const STATUS_REFUSED = 'must be one of: ';

export const isStateCategory = (v: unknown): v is StateCategory =>
  typeof v === 'string' && (stateCategories as readonly string[]).includes(v);

import * as z from 'zod';
import { ValidationError, NotFoundError } from '../domain/errors.ts';
import { listIssues, type IssueLocation } from '../domain/issues.ts';
import type { Principal } from '../domain/principal.ts';
import { listProjects } from '../domain/projects.ts';
import { listSprints } from '../domain/sprints.ts';
import type { Issue } from '../schemas/issues.ts';
import type { DomainList } from './list.ts';
import { id } from './tool.ts';

/**
 * How a tool names an issue: by its number ("APL-12"), or by project and id. Every issue a tool
 * returns carries `project_id`, `sprint_id` and `id`, and passing all three costs no search.
 */
export const issueRef = {
  issue_number: z
    .string()
    .regex(/^[A-Z0-9]{2,4}-[1-9]\d{0,15}$/, { error: 'must look like APL-12' })
    .optional()
    .describe('The issue number, e.g. "APL-12". Or give project_id and issue_id instead.'),
  project_id: id('Project of the issue (with issue_id).').optional(),
  issue_id: id('Id of the issue (with project_id).').optional(),
  sprint_id: id('The sprint the issue is in, or null if it is in the backlog.')
    .nullable()
    .optional()
    .describe('Where the issue is now: its sprint id, or null for the backlog. Optional; it saves a search.'),
};
export type IssueRefArgs = z.output<z.ZodObject<typeof issueRef>>;

export interface LocatedIssue {
  at: IssueLocation;
  issueId: number;
  /** The issue as read while searching for it, if a search was needed. */
  found?: Issue;
}

const WALK_PAGE = 100;

/** Every item of a collection, page after page, through the domain's list function. */
async function* walk<T>(list: DomainList<T>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const result = await list({ page: 1, perPage: WALK_PAGE, cursor });
    yield* result.items;
    cursor = result.page.nextCursor;
  } while (cursor);
}

async function first<T>(items: AsyncGenerator<T>, match: (item: T) => boolean): Promise<T | undefined> {
  for await (const item of items) if (match(item)) return item;
  return undefined;
}

/**
 * Finds an issue of a project in whichever list it is: active and planned sprints first, then the
 * backlog, then completed sprints (newest first). The domain looks issues up under their list
 * only, so this reads the lists page by page: its cost grows with the project.
 */
async function searchProject(caller: Principal, projectId: number, match: (issue: Issue) => boolean): Promise<Issue | undefined> {
  const sprints: { id: number; status: string }[] = [];
  for await (const sprint of walk((page) => listSprints(caller, projectId, page))) sprints.push(sprint);
  const rank = (status: string) => (status === 'active' ? 0 : status === 'planning' ? 1 : 3);
  const lists: (number | null)[] = [
    ...sprints.filter((s) => rank(s.status) < 3).sort((a, b) => rank(a.status) - rank(b.status)),
    null,
    ...sprints.filter((s) => rank(s.status) === 3).reverse(),
  ].map((s) => (s === null ? null : s.id));
  for (const sprintId of lists) {
    const found = await first(
      walk((page) => listIssues(caller, { projectId, sprintId }, page)),
      match,
    );
    if (found) return found;
  }
  return undefined;
}

/** Resolves an issue reference to the list it lives in. Nothing outside the caller's organisation is ever looked at. */
export async function locateIssue(caller: Principal, ref: IssueRefArgs): Promise<LocatedIssue> {
  if (ref.issue_number !== undefined) {
    const number = ref.issue_number;
    const prefix = number.slice(0, number.lastIndexOf('-'));
    const project = await first(
      walk((page) => listProjects(caller, page)),
      (p) => p.prefix === prefix,
    );
    const found = project && (await searchProject(caller, project.id, (issue) => issue.issue_number === number));
    if (!found) throw new NotFoundError(`Issue ${number}`);
    return { at: { projectId: found.project_id, sprintId: found.sprint_id }, issueId: found.id, found };
  }
  if (ref.project_id === undefined || ref.issue_id === undefined) {
    throw new ValidationError(['issue_number, or project_id and issue_id, are required']);
  }
  if (ref.sprint_id !== undefined) return { at: { projectId: ref.project_id, sprintId: ref.sprint_id }, issueId: ref.issue_id };
  const issueId = ref.issue_id;
  const found = await searchProject(caller, ref.project_id, (issue) => issue.id === issueId);
  if (!found) throw new NotFoundError('Issue');
  return { at: { projectId: found.project_id, sprintId: found.sprint_id }, issueId, found };
}

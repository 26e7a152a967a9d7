import { issueOfNumber } from '../db/issue-lookup.ts';
import { getIssueFamily } from '../db/issues.ts';
import type { Issue } from '../schemas/issues.ts';
import { NotFoundError } from './errors.ts';
import { getIssue } from './issues.ts';
import type { Principal } from './principal.ts';

/**
 * Finds an issue by its number ("APL-12", any case) in the caller's organisation, wherever it
 * lives: the number's pointer (one GetItem), then the issue read like any other, with its ancestor
 * checks and its place. Another organisation's number is not found: pointers live in the caller's
 * organisation's partition. 404 names the number.
 */
export async function findIssueByNumber(caller: Principal, issueNumber: string): Promise<Issue> {
  const number = issueNumber.toUpperCase();
  const pointer = await issueOfNumber(caller.orgId, number);
  if (!pointer) throw new NotFoundError(`Issue ${number}`);
  try {
    const issue = await findIssueInProject(caller, pointer.projectId, pointer.issueId);
    if (issue.issue_number !== number) throw new NotFoundError('Issue');
    return issue;
  } catch (err) {
    if (err instanceof NotFoundError) throw new NotFoundError(`Issue ${number}`);
    throw err;
  }
}

/**
 * Finds an issue of a project by id, whichever list it is in (the REST paths name the list; an
 * agent often knows only the project). Reads where it is, then reads it there with the usual
 * ancestor checks and its place: two BatchGets and one keys-only Query.
 */
export async function findIssueInProject(caller: Principal, projectId: number, issueId: number): Promise<Issue> {
  const { project, issue } = await getIssueFamily(caller.orgId, projectId, [], issueId);
  if (!project) throw new NotFoundError('Project');
  if (!issue) throw new NotFoundError('Issue');
  return getIssue(caller, { projectId, sprintId: issue.sprint_id ?? null }, issueId);
}

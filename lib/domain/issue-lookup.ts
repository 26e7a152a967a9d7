import { getIssueFamily, toIssue } from '../db/issues.ts';
import { issueByNumber, projectIdOfPrefix } from '../db/issue-lookup.ts';
import type { Issue } from '../schemas/issues.ts';
import { NotFoundError } from './errors.ts';
import { getIssue } from './issues.ts';
import type { Principal } from './principal.ts';

/**
 * Finds an issue by its number ("APL-12") in the caller's organisation, wherever it lives. As for
 * every read, it is found only while its ancestors exist: the project holding the prefix, and its
 * sprint if it is in one. 404 names the number.
 */
export async function findIssueByNumber(caller: Principal, issueNumber: string): Promise<Issue> {
  const prefix = issueNumber.slice(0, issueNumber.lastIndexOf('-'));
  const projectId = await projectIdOfPrefix(caller.orgId, prefix);
  const found = projectId === undefined ? undefined : await issueByNumber(caller.orgId, projectId, issueNumber);
  const issue = found?.issue;
  if (!found || !issue || (issue.sprint_id !== null && !found.sprintIds.has(issue.sprint_id))) {
    throw new NotFoundError(`Issue ${issueNumber}`);
  }
  return toIssue(issue);
}

/**
 * Finds an issue of a project by id, whichever list it is in (the REST paths name the list; an
 * agent often knows only the project). Reads where it is, then reads it there with the usual
 * ancestor checks: two BatchGets.
 */
export async function findIssueInProject(caller: Principal, projectId: number, issueId: number): Promise<Issue> {
  const { project, issue } = await getIssueFamily(caller.orgId, projectId, [], issueId);
  if (!project) throw new NotFoundError('Project');
  if (!issue) throw new NotFoundError('Issue');
  return getIssue(caller, { projectId, sprintId: issue.sprint_id ?? null }, issueId);
}

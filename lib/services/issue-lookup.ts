import { issueOfNumber } from '../db/issues/issue-lookup.ts';

import { getIssueFamily, getListOwner, rankInBlock, type IssueItem } from '../db/issues/issues.ts';
import type { Issue } from '../schemas/issues.ts';
import { NotFoundError } from '../vocabulary/errors.ts';

import { blockOf, countBefore } from '../model/positions.ts';

import { rankIndex } from '../db/issues/counters.ts';

import type { Principal } from '../model/principal.ts';
import { rulesOf, toIssue } from '../../lib/resources/issues.ts';

/**
 * Finds an issue by its number ("APL-12", any case) in the caller's organisation, wherever it
 * lives. Another organisation's number is not found: pointers live in the caller's organisation's
 * partition. As for every read, it is found only while its ancestors exist. 404 names the number.
 *
 * Cost: the number's pointer (GetItem), the project and the issue (BatchGet), then its place (one
 * keys-only Query; lib/model/positions.ts), with, for an issue in a sprint, the sprint read in
 * the same round trip: 3 calls for a backlog issue, 4 for a sprint issue, the authorizer aside.
 */
export async function findIssueByNumber(caller: Principal, issueNumber: string): Promise<Issue> {
  const number = issueNumber.toUpperCase();
  const missing = () => new NotFoundError(`Issue ${number}`);
  const pointer = await issueOfNumber(caller.orgId, number);
  if (!pointer) throw missing();
  const { project, issue } = await getIssueFamily(caller.orgId, pointer.projectId, [], pointer.issueId);
  if (!project || !issue || issue.issue_number !== number) throw missing();
  return placed(caller, pointer.projectId, project, issue, missing);
}

/**
 * An issue read by key with its project, answered with its place: for an issue in a sprint the
 * sprint (which must exist) is read in the same round trip as the place's keys-only Query.
 */
async function placed(caller: Principal, projectId: number, project: object, issue: IssueItem, missing: () => Error) {
  const sprintId = issue.sprint_id ?? null;
  const [owner, inBlock] = await Promise.all([
    sprintId === null ? project : getListOwner(caller.orgId, projectId, sprintId),
    rankInBlock(caller.orgId, projectId, sprintId, issue),
  ]);
  if (!owner) throw missing();
  return toIssue(issue, countBefore(rankIndex(owner), blockOf(issue.position)) + inBlock, rulesOf(project));
}

/**
 * Finds an issue of a project by id, whichever list it is in (the REST paths name the list; an
 * agent often knows only the project): the project and the issue in one BatchGet, then its place
 * (and its sprint, if it is in one, in the same round trip).
 */
export async function findIssueInProject(caller: Principal, projectId: number, issueId: number): Promise<Issue> {
  const { project, issue } = await getIssueFamily(caller.orgId, projectId, [], issueId);
  if (!project) throw new NotFoundError('Project');
  if (!issue) throw new NotFoundError('Issue');
  return placed(caller, projectId, project, issue, () => new NotFoundError('Sprint'));
}

import { issueItem } from '../db/issues/issue-item.ts';
import { readSurroundings, restoreIssue, type IssueReturn, type IssueSurroundings } from '../jobs/issue-trash.ts';
import type { IssueItem } from '../db/issues/issues.ts';
import { decideParent } from './sub-issues.ts';
import { allocatePositions, getListOwner } from '../db/issues/issues.ts';
import { isRefused } from '../db/core/transactions.ts';
import type { Principal } from '../model/principal.ts';
import { appendedPosition } from '../model/positions.ts';
import type { Issue } from '../schemas/issues.ts';
import { NotFoundError, SprintBusyError, TransitionError, ValidationError } from '../vocabulary/errors.ts';
import { getIssue } from './issues.ts';
import { explainRefusal, projectNotThere, refusedAs } from './refusals.ts';
import { MAX_RELATIONS } from './relations.ts';
import { getProjectItem } from '../db/projects/projects.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import { stateOnReturn } from '../model/workflow.ts';

/** Where a restored issue came back: at its own place in its own list, or at the end of the backlog (its sprint gone). */
export type IssuePlaced = 'as_before' | 'backlog_end';

/**
 * Brings a trashed issue (`stored`: as it was stored) back whole (docs/trash.md): the same id,
 * number, fields and version, at its own place in its sprint or backlog, or, when its sprint is
 * gone, at the end of the backlog (`placed` says which); its relations whose other issue is still
 * there, on both sides; its parent when it is there (else none); its children that kept their
 * link, counted in its summary. 422 `{error}` when its project is gone or its number was taken
 * meanwhile; 404 when the trash item went meanwhile (restored or purged).
 */
export async function restoreTrashedIssue(
  caller: Principal,
  stored: Record<string, unknown>,
  deletedAt: string,
): Promise<{ issue: Issue; placed: IssuePlaced }> {
  const { id, projectId, sprintId, position, number, parentId } = issueItem.decode(stored);
  const { orgId } = caller;
  const cannot = (why: string) => new TransitionError(`Issue ${number} cannot come back: ${why}`);
  const meanings = {
    project: () => cannot(`its project ${projectId} no longer exists`),
    number_taken: () => cannot(`its number ${number} is held by an issue of another project`),
    issue_exists: () => new TransitionError(`Issue ${number} exists again`),
    trashed: () => new NotFoundError('Trash item'),
  };
  let back: IssueReturn = { sprintId, position, undoRemoval: true, parent: parentId === null ? 'dropped' : 'counted' };
  // Its relations' other issues, its parent and its children, read again when one of them changed before the write.
  for (let attempt = 1; ; attempt++) {
    const around = await readSurroundings(orgId, stored, MAX_RELATIONS);
    // Its parent takes it back within the sub-issue rules, decided as a PATCH of `parent_id` is.
    if (back.parent === 'counted') {
      const guard = await parentOnReturn(orgId, stored, around);
      back = guard ? { ...back, guard } : { ...back, parent: 'dropped', guard: undefined };
    }
    try {
      await restoreIssue(orgId, stored, deletedAt, back, around);
      break;
    } catch (err) {
      if (isRefused(err, 'stale') && attempt < RESTORE_ATTEMPTS) continue;
      // Its parent is gone (for good, or into the trash): it comes back without one.
      if (isRefused(err, 'issue') && back.parent === 'counted') {
        back = { ...back, parent: 'dropped' };
      } else if (isRefused(err, 'state')) {
        // Its state was deleted while it was away: it comes back in the state that state's issues went to.
        const project = await getProjectItem(orgId, projectId);
        if (!project) throw cannot(await projectNotThere(orgId, projectId));
        back = { ...back, state: stateOnReturn(workflowOf(project), issueItem.decode(stored), new Date().toISOString()) };
      } else if (isRefused(err, 'sprint') && back.sprintId !== null && back.undoRemoval) {
        // Its sprint is gone, being completed, or was activated since the delete: one read tells which.
        const sprint = await getListOwner(orgId, projectId, back.sprintId);
        if (sprint?.status === 'completing') throw new SprintBusyError();
        back = sprint
          ? { ...back, undoRemoval: false }
          : {
              ...back,
              sprintId: null,
              position: appendedPosition(await refusedAs(meanings, () => allocatePositions(orgId, projectId, 1))),
              undoRemoval: false,
            };
      } else if (isRefused(err, 'project')) {
        throw cannot(await projectNotThere(orgId, projectId));
      } else {
        throw explainRefusal(err, meanings);
      }
      if (attempt >= RESTORE_ATTEMPTS) throw explainRefusal(err, meanings);
    }
  }
  const issue = await getIssue(caller, { projectId, sprintId: back.sprintId }, id);
  return { issue, placed: back.sprintId === sprintId ? 'as_before' : 'backlog_end' };
}

/**
 * The guard under which issue `stored` goes back under its parent: the parent is there (read
 * with `around`), has fewer than 100 sub-issues, and the chain with the issue and its children
 * now stays within 5 levels (`decideParent`); undefined: it comes back without one.
 */
async function parentOnReturn(orgId: number, stored: Record<string, unknown>, around: IssueSurroundings) {
  const { projectId, parentId } = issueItem.decode(stored);
  // The issue as it comes back: its children as they are now.
  const child = { ...stored, ...issueItem.encode({ subIssuesTotal: around.children.length }) } as unknown as IssueItem;
  try {
    return (await decideParent(orgId, projectId, child, parentId, around.parent as IssueItem | undefined)).guard;
  } catch (err) {
    if (err instanceof ValidationError) return undefined;
    throw err;
  }
}

/** Writes a restore tries at most (each decision above moves it on; `stale` reads again). */
const RESTORE_ATTEMPTS = 5;

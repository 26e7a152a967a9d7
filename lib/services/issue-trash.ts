import { issueItem } from '../db/issue-item.ts';
import { restoreIssue, type IssueReturn } from '../db/issue-trash.ts';
import { allocatePositions, getListOwner } from '../db/issues.ts';
import { isRefused } from '../db/transactions.ts';
import type { Principal } from '../model/principal.ts';
import { appendedPosition } from '../model/positions.ts';
import type { Issue } from '../schemas/issues.ts';
import { NotFoundError, SprintBusyError, TransitionError } from '../vocabulary/errors.ts';
import { getIssue } from './issues.ts';
import { explainRefusal, refusedAs } from './refusals.ts';

/** Where a restored issue came back: at its own place in its own list, or at the end of the backlog (its sprint gone). */
export type IssuePlaced = 'as_before' | 'backlog_end';

/**
 * Brings a trashed issue (`stored`: as it was stored) back whole (docs/trash.md): the same id,
 * number, fields and version, at its own place in its sprint or backlog, or, when its sprint is
 * gone, at the end of the backlog (`placed` says which). 422 `{error}` when its project is gone or
 * its number was taken meanwhile; 404 when the trash item went meanwhile (restored or purged).
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
    issue: () => cannot(`its parent issue ${parentId} no longer exists`),
    trashed: () => new NotFoundError('Trash item'),
  };
  let back: IssueReturn = { sprintId, position, undoRemoval: true };
  try {
    await restoreIssue(orgId, stored, deletedAt, back);
  } catch (err) {
    if (sprintId === null || !isRefused(err, 'sprint')) throw explainRefusal(err, meanings);
    // Its sprint is gone, being completed, or was activated since the delete: one read tells which.
    const sprint = await getListOwner(orgId, projectId, sprintId);
    if (sprint?.status === 'completing') throw new SprintBusyError();
    back = sprint
      ? { sprintId, position, undoRemoval: false }
      : {
          sprintId: null,
          position: appendedPosition(await refusedAs(meanings, () => allocatePositions(orgId, projectId, 1))),
          undoRemoval: false,
        };
    await refusedAs(meanings, () => restoreIssue(orgId, stored, deletedAt, back));
  }
  const issue = await getIssue(caller, { projectId, sprintId: back.sprintId }, id);
  return { issue, placed: back.sprintId === sprintId ? 'as_before' : 'backlog_end' };
}

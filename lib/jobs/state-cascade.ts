import type { PagePosition } from '../model/cascades.ts';
import type { IssueState } from '../model/derivations.ts';
import { liveState, stateWrite, type WorkflowState } from '../model/workflow.ts';
import type { StateCategory } from '../vocabulary/workflow.ts';
import { issueLists, issuesInStatePage, type IssueInState, type IssueList } from '../db/issues/issues-in-state.ts';
import { stateFields, writeIssue, type IssueFieldChanges } from '../db/issues/issues.ts';
import { getProjectItem } from '../db/projects/projects.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import { Refused } from '../db/core/transactions.ts';

/**
 * The cascade of a state's delete (lib/jobs/cascade.ts): the state its issues went to written on
 * each of them, through the issue write path.
 */

/** Issues of the project one step of a state's cascade reads (and moves the ones in the state among) at most. */
const CASCADE_PAGE = 100;

/**
 * The cascade of a state's delete: writes the state its issues went to (`WM#<id>` on the project,
 * followed to a live state) on each issue still stored in it (and, when the state was its
 * category's home, on each issue of that category stored without one), one page of the project's
 * lists (the sprints', then the backlog: lib/db/issues/issues-in-state.ts) at a time from `after`.
 * Each issue is one write of the issue path, conditioned on its `rev`, with what every derivation
 * keeps (counters, indexes) and what a change of category does to `started_at` / `completed_at`;
 * an issue changed meanwhile is read again on the next run. `onPage` is called after each page
 * with where the next starts (undefined: done). Returns the issues moved.
 */
export async function moveIssuesOffState(
  orgId: number,
  projectId: number,
  stateId: number,
  after: PagePosition | undefined,
  onPage: (next: PagePosition | undefined) => void,
): Promise<number> {
  const project = await getProjectItem(orgId, projectId);
  if (!project) return 0; // the project's own cascade removes its issues
  const workflow = workflowOf(project);
  const target = liveState(workflow, stateId);
  if (!target) return 0;
  const home = (Object.entries(workflow.homes) as [StateCategory, number][]).find(([, id]) => id === stateId)?.[0];
  let list: IssueList = issueLists.find((l) => l === after?.list) ?? issueLists[0];
  let start = (after?.key as PagePosition | undefined) ?? undefined;
  let moved = 0;
  for (;;) {
    const page = await issuesInStatePage(orgId, projectId, list, stateId, home, start, CASCADE_PAGE);
    for (const issue of page.issues) {
      if (await moveIssueToState(orgId, projectId, issue, target)) moved++;
    }
    start = page.next;
    if (!start) {
      const nextList = issueLists[issueLists.indexOf(list) + 1];
      if (!nextList) {
        onPage(undefined);
        return moved;
      }
      list = nextList;
    }
    onPage({ list, ...(start ? { key: start } : {}) });
  }
}

/** One issue of a deleted state written in `target`; false when it changed meanwhile (left for the next run). */
async function moveIssueToState(orgId: number, projectId: number, { issue, state }: IssueInState, target: WorkflowState) {
  const now = new Date().toISOString();
  const set: IssueFieldChanges = { ...stateFields(stateWrite(issue, target, now)), updatedAt: now };
  const afterState: IssueState = { ...state, stateId: target.id, status: target.category, updatedAt: now };
  try {
    await writeIssue(orgId, projectId, { id: issue.id, rev: issue.rev, set, before: state, after: afterState, placed: false });
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

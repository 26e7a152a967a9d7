import { readBoard } from '../db/issues/board.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import type { ValuesFilter } from './custom-field-filter.ts';
import { listCounters } from '../db/issues/counters.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import { COLUMN_COUNT, COLUMN_POINTS } from '../model/derivations.ts';
import type { Principal } from '../model/principal.ts';
import { liveState, stateOfIssue, statusKey, type Workflow, type WorkflowState } from '../model/workflow.ts';
import type { Board } from '../schemas/states.ts';
import { NotFoundError } from '../vocabulary/errors.ts';
import { isStateCategory } from '../vocabulary/workflow.ts';

/**
 * The board of a sprint or of the backlog (docs/workflows.md: the board): one column per state in
 * board order, each with its count and story points from the list's column counters (the
 * `state-columns` derivation: exact, kept by every write), its WIP limit and whether the count
 * passes it, and its first issues in list order. One round trip after the token's.
 */
export async function getBoard(
  caller: Principal,
  projectId: number,
  sprintId: number | null,
  perColumn: number,
  /** A filter on custom fields (`fields`): its columns count and show the matching issues among those read. */
  values?: ValuesFilter,
): Promise<Board> {
  const read = await readBoard(caller.orgId, projectId, sprintId, values !== undefined);
  if (!read.project) throw new NotFoundError('Project');
  if (!read.owner) throw new NotFoundError('Sprint');
  const workflow = workflowOf(read.project);
  const matches = values?.(read.project);
  const totals = matches
    ? new Map<number, { count: number; points: number }>()
    : columnTotals(workflow, listCounters(read.owner));
  const columns = new Map(workflow.states.map((s) => [s.id, { state: s, issues: [] as Board['columns'][number]['issues'] }]));
  read.issues.forEach((issue, i) => {
    const state = stateOfIssue(workflow, issue.stateId, issue.status);
    if (matches && !matches(issueItem.encode(issue))) return;
    if (matches && state) {
      const total = totals.get(state.id) ?? { count: 0, points: 0 };
      totals.set(state.id, { count: total.count + 1, points: total.points + (issue.storyPoints ?? 0) });
    }
    const column = state && columns.get(state.id);
    if (!column || column.issues.length >= perColumn) return;
    column.issues.push({
      id: issue.id,
      issue_number: issue.number,
      title: String(issue.title),
      status: statusKey(column.state.name),
      story_points: issue.storyPoints,
      assignee_id: issue.assigneeId,
      priority: issue.priority,
      type: issue.type,
      position: i + 1,
    });
  });
  return {
    project_id: projectId,
    sprint_id: sprintId,
    columns: [...columns.values()].map(({ state, issues }) => {
      const { count, points } = totals.get(state.id) ?? { count: 0, points: 0 };
      return {
        state: { id: state.id, name: state.name, status: statusKey(state.name), category: state.category, color: state.color },
        count,
        story_points: points,
        wip_limit: state.wipLimit,
        exceeded: state.wipLimit !== null && count > state.wipLimit,
        issues,
      };
    }),
    complete: !read.more,
  };
}

/**
 * A list's counts and points per state, from its owner's column counters (lib/db/issues/counters.ts: `listCounters`): a counter of a deleted
 * state counts in the state its issues went to, one of a category's home (issues from before
 * workflows) in that state.
 */
export function columnTotals(
  workflow: Workflow,
  counters: Readonly<Record<string, number>>,
): Map<number, { count: number; points: number }> {
  const totals = new Map<number, { count: number; points: number }>();
  const stateOf = (key: string): WorkflowState | undefined => {
    const category = key.startsWith('h_') ? key.slice(2) : undefined;
    return isStateCategory(category) ? stateOfIssue(workflow, null, category) : liveState(workflow, Number(key));
  };
  for (const [name, value] of Object.entries(counters)) {
    const counted = name.startsWith(COLUMN_COUNT) ? 'count' : name.startsWith(COLUMN_POINTS) ? 'points' : undefined;
    if (!counted) continue;
    const state = stateOf(name.slice(COLUMN_COUNT.length));
    if (!state) continue;
    const total = totals.get(state.id) ?? { count: 0, points: 0 };
    total[counted] += Number(value);
    totals.set(state.id, total);
  }
  return totals;
}

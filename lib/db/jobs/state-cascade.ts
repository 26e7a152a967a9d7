import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { IssueState } from '../../model/derivations.ts';
import { liveState, stateWrite, type WorkflowState } from '../../model/workflow.ts';
import type { StateCategory } from '../../vocabulary/workflow.ts';
import { db, tableName } from '../core/client.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import { stateFields, writeIssue, type IssueFieldChanges } from '../issues/issues.ts';
import { keys, projectPk } from '../core/keys.ts';
import { workflowOf } from '../projects/workflow.ts';
import { getItem, Refused } from '../core/transactions.ts';

/**
 * The cascade of a state's delete (lib/db/jobs/cascade.ts): the state its issues went to written on
 * each of them, through the issue write path.
 */

/** The project's issues whose stored state may be `stateId` (or, `home`, none and of `category`): one page. */
async function issuesInStatePage(
  orgId: number,
  projectId: number,
  list: 'S#' | 'B#',
  stateId: number,
  home: StateCategory | undefined,
  start: Record<string, unknown> | undefined,
  limit: number,
) {
  const legacy = home ? ' OR (attribute_not_exists(state_id) AND #status = :category)' : '';
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: `state_id = :state${legacy}`,
      ExpressionAttributeValues: {
        ':pk': projectPk(orgId, projectId),
        ':prefix': list,
        ':state': stateId,
        ...(home ? { ':category': home } : {}),
      },
      ...(home ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ConsistentRead: true,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey };
}

/** Issues of the project one step of a state's cascade reads (and moves the ones in the state among) at most. */
const CASCADE_PAGE = 100;

/**
 * The cascade of a state's delete: writes the state its issues went to (`WM#<id>` on the project,
 * followed to a live state) on each issue still stored in it (and, when the state was its
 * category's home, on each issue of that category stored without one), one page of the project's
 * lists (LSI1 `S#`, then `B#`) at a time from `after`. Each issue is one write of the issue path,
 * conditioned on its `rev`, with what every derivation keeps (counters, indexes) and what a change
 * of category does to `started_at` / `completed_at`; an issue changed meanwhile is read again on
 * the next run. `onPage` is called after each page with where the next starts (undefined: done).
 * Returns the issues moved.
 */
export async function moveIssuesOffState(
  orgId: number,
  projectId: number,
  stateId: number,
  after: Record<string, unknown> | undefined,
  onPage: (next: Record<string, unknown> | undefined) => void,
): Promise<number> {
  const project = await getItem(keys.project(orgId, projectId));
  if (!project) return 0; // the project's own cascade removes its issues
  const workflow = workflowOf(project);
  const target = liveState(workflow, stateId);
  if (!target) return 0;
  const home = (Object.entries(workflow.homes) as [StateCategory, number][]).find(([, id]) => id === stateId)?.[0];
  const lists = ['S#', 'B#'] as const;
  let list: 'S#' | 'B#' = after?.list === 'B#' ? 'B#' : 'S#';
  let start = (after?.key as Record<string, unknown> | undefined) ?? undefined;
  let moved = 0;
  for (;;) {
    const page = await issuesInStatePage(orgId, projectId, list, stateId, home, start, CASCADE_PAGE);
    for (const item of page.items) {
      if (await moveIssueToState(orgId, projectId, item, target)) moved++;
    }
    start = page.next;
    if (!start) {
      const nextList = lists[lists.indexOf(list) + 1];
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
async function moveIssueToState(orgId: number, projectId: number, item: Record<string, unknown>, target: WorkflowState) {
  const stored = issueItem.decode(item);
  const now = new Date().toISOString();
  const set: IssueFieldChanges = { ...stateFields(stateWrite(stored, target, now)), updatedAt: now };
  const before = issueStateOf(orgId, item);
  const afterState: IssueState = { ...before, stateId: target.id, status: target.category, updatedAt: now };
  try {
    await writeIssue(orgId, projectId, { id: stored.id, rev: stored.rev, set, before, after: afterState, placed: false });
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

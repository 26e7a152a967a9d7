import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { IssueState } from '../../model/derivations.ts';
import type { StateCategory } from '../../vocabulary/workflow.ts';
import { db, tableName } from '../core/client.ts';
import { projectPk } from '../core/keys.ts';
import { issueItem, issueStateOf, type StoredIssue } from './issue-item.ts';

/**
 * The reads of a state's cascade (lib/jobs/state-cascade.ts): a project's issues stored in a state,
 * a page at a time, one list after the other.
 */

/** The lists of a project's issues, in the order a state's cascade reads them: the sprints' (LSI1 `S#`), then the backlog's (`B#`). */
export const issueLists = ['S#', 'B#'] as const;
export type IssueList = (typeof issueLists)[number];

/** An issue as a state's cascade reads it: its fields, and its state as the derivations compare it. */
export interface IssueInState {
  issue: StoredIssue;
  state: IssueState;
}

/**
 * The project's issues of `list` whose stored state may be `stateId` (or, `home`, none and of
 * `category`): one page of at most `limit` issues read from `start`, and where the next starts.
 */
export async function issuesInStatePage(
  orgId: number,
  projectId: number,
  list: IssueList,
  stateId: number,
  home: StateCategory | undefined,
  start: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ issues: IssueInState[]; next: Record<string, unknown> | undefined }> {
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
  const issues = (out.Items ?? []).map((item) => ({ issue: issueItem.decode(item), state: issueStateOf(orgId, item) }));
  return { issues, next: out.LastEvaluatedKey };
}

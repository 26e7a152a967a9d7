import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../core/client.ts';
import { issueItem } from './issue-item.ts';
import { collections, keys } from '../core/keys.ts';
import { batchGet } from '../core/transactions.ts';

/** What a board shows of each issue: few attributes, so that one Query page holds thousands of them. */
const fieldsShown = [
  'id',
  'number',
  'title',
  'status',
  'stateId',
  'storyPoints',
  'assigneeId',
  'priority',
  'type',
  'position',
] as const;
const shown = issueItem.projection([...fieldsShown]);
/** With its custom fields' values too: a board filtered by them (docs/custom-fields.md). */
const shownWithValues = issueItem.projection([...fieldsShown, 'customFields']);

/**
 * A board's one round trip (docs/workflows.md: the board): the project (its workflow, the
 * backlog's column counters) with the sprint (its column counters), in one BatchGet, and side by
 * side the list's issues in order, as the board shows them, in one Query page. `more`: the list
 * did not fit in one page (the columns' issues are then those of its first part; the counts are
 * the counters', always whole).
 */
export async function readBoard(orgId: number, projectId: number, sprintId: number | null, withValues = false) {
  const list =
    sprintId === null ? collections.backlogIssues(orgId, projectId) : collections.sprintIssues(orgId, projectId, sprintId);
  const [found, page] = await Promise.all([
    batchGet([keys.project(orgId, projectId), ...(sprintId === null ? [] : [keys.sprint(orgId, projectId, sprintId)])]),
    db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'LSI1',
        KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
        ExpressionAttributeValues: { ':pk': list.pk, ':prefix': list.prefix },
        ...(withValues ? shownWithValues : shown),
        ConsistentRead: true,
      }),
    ),
  ]);
  const [project, sprint] = found;
  return {
    project,
    owner: sprintId === null ? project : sprint,
    issues: (page.Items ?? []).map((item) => issueItem.decode(item)),
    more: page.LastEvaluatedKey !== undefined,
  };
}

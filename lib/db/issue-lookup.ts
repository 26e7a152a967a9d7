import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { type IssueItem } from './issues.ts';
import { keys, projectPk } from './keys.ts';

/**
 * Lookups by what a person reads on an issue ("APL-12") rather than by the keys a path carries:
 * the issue number names a project by its prefix and an issue by its per-project sequence.
 */

/** The project that holds a prefix now (its uniqueness guard, deleted with the project): one GetItem. */
export async function projectIdOfPrefix(orgId: number, prefix: string): Promise<number | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: keys.prefix(orgId, prefix), ConsistentRead: true }));
  return out.Item ? Number(out.Item.project_id) : undefined;
}

/**
 * The issue of a project with this number, and the ids of the project's sprints (to tell whether
 * the issue's sprint still exists), in one pass over the project's partition filtered to its
 * sprints and that issue: one Query per MB of the partition, whichever list the issue is in.
 * No index of issue numbers exists, so this is the cheapest read that does not depend on where
 * the issue lives.
 */
export async function issueByNumber(
  orgId: number,
  projectId: number,
  issueNumber: string,
): Promise<{ issue: IssueItem | undefined; sprintIds: Set<number> }> {
  let issue: IssueItem | undefined;
  const sprintIds = new Set<number>();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: '#type = :sprint OR (#type = :issue AND issue_number = :number)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':pk': projectPk(orgId, projectId),
          ':sprint': 'sprint',
          ':issue': 'issue',
          ':number': issueNumber,
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      if (item.type === 'sprint') sprintIds.add(Number(item.id));
      else issue = item as IssueItem;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return { issue, sprintIds };
}

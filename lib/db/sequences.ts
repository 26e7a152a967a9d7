import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

export type SequenceName = 'account' | 'project' | 'sprint' | 'issue' | 'comment' | 'webhook';

/**
 * Next integer id of a per-organisation sequence: one atomic ADD. A number is never handed out
 * twice, even if the write that wanted it then fails (a gap, never a reuse).
 */
export async function nextId(orgId: number, name: SequenceName): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.sequences(orgId),
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': name },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.[name]);
}

/** Next organisation id (organisations are global, so their sequence is too). */
export async function nextOrgId(): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.orgSequence(),
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'organisation' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.organisation);
}

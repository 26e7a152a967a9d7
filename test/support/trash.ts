import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import type { Key } from '../../lib/db/keys.ts';
import type { ApiClient } from './api.ts';

/**
 * Puts a trash item past its retention, as if its time had come (`secondsAgo` before now): reads
 * treat it as purged at once, as they do before DynamoDB's TTL deletes it (DynamoDB Local never does).
 */
export async function pastRetention(key: Key, secondsAgo = 1): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET expires_at = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - secondsAgo },
    }),
  );
}

/**
 * The trash as docs/trash.md shows it after `member` deleted the one item `entry` describes: the
 * member sees it in their list and by its id, an admin sees it among its kind and none of `otherKind`.
 */
export async function expectTrashedBy(
  member: ApiClient,
  admin: ApiClient,
  entry: { id: string; kind: string },
  otherKind: string,
): Promise<void> {
  expect((await member.get('/api/v1/trash')).body).toEqual([expect.objectContaining(entry)]);
  expect((await admin.get(`/api/v1/trash?kind=${entry.kind}`)).body).toEqual([expect.objectContaining(entry)]);
  expect((await admin.get(`/api/v1/trash?kind=${otherKind}`)).body).toEqual([]);
  expect((await member.get(`/api/v1/trash/${entry.id}`)).body).toMatchObject(entry);
}

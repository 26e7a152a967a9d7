import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../../lib/model/principal.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { bounds, eventually } from './eventually.ts';

/** Which items to watch: a partition, optionally narrowed to an SK or LSK (LSI1) prefix. */
export interface ItemRange {
  pk: string;
  skPrefix?: string;
  /** An LSI1 prefix, e.g. a sprint's issues `S#<sprint>#`. */
  lskPrefix?: string;
}

/** The items of a range still in the table (consistent read), up to `limit`. */
export async function itemsIn(range: ItemRange, limit = 25): Promise<Record<string, unknown>[]> {
  const condition = range.lskPrefix
    ? 'PK = :pk AND begins_with(LSK, :prefix)'
    : range.skPrefix
      ? 'PK = :pk AND begins_with(SK, :prefix)'
      : 'PK = :pk';
  const prefix = range.lskPrefix ?? range.skPrefix;
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      ...(range.lskPrefix ? { IndexName: 'LSI1' } : {}),
      KeyConditionExpression: condition,
      ExpressionAttributeValues: { ':pk': range.pk, ...(prefix ? { ':prefix': prefix } : {}) },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  // The activity history (written in the background by the change feed for whatever a test seeds)
  // is not what these tests count; test/e2e/activity.test.ts checks its own removal.
  return (out.Items ?? []).filter((item) => item.type !== 'activity');
}

/**
 * Waits until nothing is left in `range` (the cascade consumer runs in the background, fed by the
 * stream poller of the test run), at most the cascade bound of `items` items. Resolves with the
 * time it took; fails listing what is left.
 */
export async function waitUntilEmpty(range: ItemRange, items = 100): Promise<number> {
  const started = Date.now();
  const what = `the cascade to empty ${range.pk} ${range.skPrefix ?? range.lskPrefix ?? ''}`.trimEnd();
  await eventually(
    what,
    () => itemsIn(range, 5),
    (left) => left.length === 0,
    bounds.cascade(items),
  );
  return Date.now() - started;
}

/**
 * Removes the item at `key` for good without the test run's cascade consumer cascading it: its
 * type is changed first, so its REMOVE passes none of the consumer's filters. For tests that hand
 * a parent's REMOVE record to the cascade themselves (a sprint or project whose item is still
 * there is taken as restored from the trash, and left alone: docs/trash.md).
 */
export async function removeQuietly(key: { PK: string; SK: string }): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #type = :quiet',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':quiet': 'removed-by-test' },
    }),
  );
  await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
}

/**
 * Deletes project `projectId` for good, as an admin would: into the trash, then, once its issues
 * are taken out (`held`), purged; the cascade consumer then empties its partition.
 */
export async function deleteProjectForGood(caller: Principal, projectId: number, items = 100): Promise<void> {
  const { deleteProject } = await import('../../lib/services/projects.ts');
  const { getTrashed } = await import('../../lib/db/core/trash.ts');
  const { purge } = await import('../../lib/services/trash.ts');
  await deleteProject(caller, projectId);
  await eventually(
    `project ${projectId} to be held in the trash`,
    () => getTrashed(caller.orgId, 'project', projectId),
    (found) => found?.state === 'held',
    bounds.cascade(items),
  );
  await purge(caller, `project-${projectId}`);
}

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client.ts';
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

import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { createLocalBucket } from '../../tools/local/s3.ts';
import { ensureTable } from '../../tools/local/table.ts';

/**
 * A file of the `own-table` project (vitest.config.ts) works on a table of its own, its worker
 * slot's (test/support/own-table-names.ts), found empty when its tests start: the global setup
 * made it, and what the slot's previous file left in it is taken out here, the organisation id
 * sequence too, so the file meets the table as a new one. A file that reads a whole table (a data
 * migration, a rebuild from a Scan) then reads only what it wrote, whatever the other files write
 * meanwhile. It has a bucket of its own too, named by its process, so that its attachments'
 * objects (keyed by organisation ids, which start again with its table) are never another file's.
 * The run's stream consumers do not read that table: such a file needs none of them.
 */
beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  await emptyOwnTable({ sequence: false });
  // Its bucket on the run's local S3 server (CreateBucket; 409: made by an earlier file of this process).
  const made = await createLocalBucket(process.env.S3_ENDPOINT!, process.env.ATTACHMENTS_BUCKET!);
  if (made !== 200 && made !== 409) throw new Error(`CreateBucket ${process.env.ATTACHMENTS_BUCKET}: ${made}`);
});

/**
 * Empties the file's own table but for the organisation id sequence (so that ids are never handed
 * out twice in a process, whatever it caches by id): a test that reads the whole table then reads
 * only what it wrote itself, not what the tests before it left. `{ sequence: false }` takes the
 * sequence too, as before each file's tests (above): the table as this release makes it, one that
 * never held an organisation (and whose ids start again: its process's bucket is new too).
 */
export async function emptyOwnTable(options: { sequence?: boolean } = {}): Promise<void> {
  const keepSequence = options.sequence ?? true;
  if (!/-own-\d+$/.test(tableName())) throw new Error(`${tableName()} is not a table of this file's own`);
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new ScanCommand({ TableName: tableName(), ConsistentRead: true, ProjectionExpression: 'PK, SK', ExclusiveStartKey: start }),
    );
    const sequence = keys.orgSequence();
    const found = (out.Items ?? []).filter((k) => !keepSequence || !(k.PK === sequence.PK && k.SK === sequence.SK));
    for (let i = 0; i < found.length; i += 25) {
      let requests = found.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      while (requests.length > 0) {
        const done = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (done.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
}

/** Every item of the file's own table, read whole with a consistent Scan, page by page. */
export async function wholeTable(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

import { beforeAll } from 'vitest';
import { tableName } from '../../lib/db/client.ts';
import { ensureTable } from '../../tools/local/table.ts';

/**
 * A file of the `own-table` project (vitest.config.ts) works on a table of its own, named by
 * test/support/env.ts and made here before its tests run: a file that reads a whole table (a data
 * migration, a rebuild from a Scan) then reads only what it wrote, whatever the other files write
 * meanwhile; and a bucket of its own, so that its attachments' objects (keyed by organisation ids,
 * which start again with its table) are never another file's. The run's stream consumers do not
 * read that table: such a file needs none of them.
 */
beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  // Its bucket on the run's local S3 server (CreateBucket; 409: made by an earlier file of this process).
  const made = await fetch(`${process.env.S3_ENDPOINT}/${process.env.ATTACHMENTS_BUCKET}`, { method: 'PUT' });
  if (made.status !== 200 && made.status !== 409)
    throw new Error(`CreateBucket ${process.env.ATTACHMENTS_BUCKET}: ${made.status}`);
});

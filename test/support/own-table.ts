import { beforeAll } from 'vitest';
import { tableName } from '../../lib/db/client.ts';
import { ensureTable } from '../../tools/local/table.ts';

/**
 * A file of the `own-table` project (vitest.config.ts) works on a table of its own, named by
 * test/support/env.ts and made here before its tests run: a file that reads a whole table (a data
 * migration, a rebuild from a Scan) then reads only what it wrote, whatever the other files write
 * meanwhile. The run's stream consumers do not read that table: such a file needs none of them.
 */
beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
});

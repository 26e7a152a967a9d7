/**
 * The tables of the `own-table` project (vitest.config.ts): one per worker slot, so that the run
 * has at most `maxWorkers` of them, all made by the global setup before anything else is written.
 *
 * Why they are made first: DynamoDB Local keeps every stream record of every table in one list,
 * and each write to a table with a stream looks for its stream's earliest record from the start of
 * that list. A table made after others have written tens of thousands of records pays for all of
 * them on every item it writes (4.9 ms of the emulator's CPU an item in transactions of 25, made
 * after 6,000 records of other tables, against 1.3 ms on a table whose stream began first; and
 * growing with those records). A table whose stream holds a record from the start of the run
 * finds it at once. `npx tsx tools/bench/dynamodb-writes.ts --case late-table` measures it.
 */

/** The worker slot running this file (1 to maxWorkers); a file runs alone in its slot. */
export function poolSlot(): number {
  const slot = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(slot) || slot < 1) throw new Error(`VITEST_POOL_ID is ${process.env.VITEST_POOL_ID}: not a worker slot`);
  return slot;
}

/** The own table of a worker slot, beside the run's shared table. */
export const ownTableName = (sharedTable: string, slot: number) => `${sharedTable}-own-${slot}`;

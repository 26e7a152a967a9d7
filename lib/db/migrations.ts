import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Cursor, MigrationRecord, MigrationStatus } from '../model/migrations.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { keys, migrationsPk } from './keys.ts';
import { queryPages } from './query.ts';
import { transact } from './transactions.ts';

/**
 * The records of the data migrations (`keys.migration`, one item each) and the lease of their one
 * runner (`keys.migrationLease`), in a partition of their own (`MIGRATION`). A record is written
 * only by the holder of the lease, in the same transaction that renews it: a runner that lost its
 * lease (it stalled past it and another took over) can no longer write progress.
 */

const RECORD_PREFIX = 'MIGRATION#';

/** A record as stored. */
export function migrationItem(record: MigrationRecord): Record<string, unknown> {
  return {
    ...keys.migration(record.name),
    type: 'migration',
    name: record.name,
    status: record.status,
    started_at: record.startedAt,
    finished_at: record.finishedAt,
    cursor: record.cursor === undefined ? undefined : JSON.stringify(record.cursor),
    counts: record.counts,
    steps: record.steps,
    runs: record.runs,
    error: record.error,
    baseline: record.baseline,
  };
}

function recordOf(item: Record<string, unknown>): MigrationRecord {
  return {
    name: String(item.name),
    status: item.status as MigrationStatus,
    startedAt: item.started_at as string | undefined,
    finishedAt: item.finished_at as string | undefined,
    cursor: typeof item.cursor === 'string' ? (JSON.parse(item.cursor) as Cursor) : undefined,
    counts: (item.counts as Record<string, number> | undefined) ?? {},
    steps: Number(item.steps ?? 0),
    runs: Number(item.runs ?? 0),
    error: item.error as string | undefined,
    baseline: item.baseline === true ? true : undefined,
  };
}

/** Every migration's record, by name (one Query of their partition). */
export async function readMigrationRecords(): Promise<Map<string, MigrationRecord>> {
  const found = new Map<string, MigrationRecord>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': migrationsPk, ':prefix': RECORD_PREFIX },
    },
    {},
    (items) => {
      for (const item of items) found.set(String(item.name), recordOf(item));
    },
  );
  return found;
}

/** The lease as stored: who holds it and until when (ms since the epoch); undefined if none. */
export async function readMigrationLease(): Promise<{ owner: string; until: number } | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName(), Key: keys.migrationLease(), ConsistentRead: true }));
  return out.Item ? { owner: String(out.Item.owner), until: Number(out.Item.lease_until) } : undefined;
}

/**
 * Takes the lease for `owner` until `until` if nobody holds it, it ran out, or `owner` holds it
 * already (a conditional Put). False when another runner holds it.
 */
export async function acquireMigrationLease(owner: string, now: number, until: number): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.migrationLease(),
          type: 'migration_lease',
          owner,
          lease_until: until,
          taken_at: new Date(now).toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(PK) OR lease_until <= :now OR #owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': now, ':owner': owner },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

/** Gives the lease back, if `owner` still holds it. */
export async function releaseMigrationLease(owner: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.migrationLease(),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
  }
}

/** The reason a progress write is refused: the writer no longer holds the lease. */
export const LEASE_LOST = 'lease-lost';

/**
 * Writes `record` and renews `owner`'s lease until `until`, in one transaction that is refused
 * (`Refused` with reason `LEASE_LOST`) unless `owner` still holds the lease.
 */
export async function saveMigrationRecord(owner: string, record: MigrationRecord, until: number): Promise<void> {
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.migrationLease(),
          UpdateExpression: 'SET lease_until = :until',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':until': until },
        },
      },
      reason: LEASE_LOST,
    },
    { item: { Put: { TableName: tableName(), Item: migrationItem(record) } } },
  ]);
}

/**
 * Records `names` as done without running them, each only if it has no record yet (a conditional
 * Put): a table that never held data written by an earlier release needs none of them.
 */
export async function recordBaseline(names: readonly string[], at: string): Promise<void> {
  for (const name of names) {
    try {
      await db.send(
        new PutCommand({
          TableName: tableName(),
          Item: migrationItem({
            name,
            status: 'done',
            startedAt: at,
            finishedAt: at,
            counts: {},
            steps: 0,
            runs: 0,
            baseline: true,
          }),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }
}

/** The highest organisation id handed out (lib/db/sequences.ts). */
export { lastOrganisationId } from './sequences.ts';

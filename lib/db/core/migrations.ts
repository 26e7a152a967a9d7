import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Cursor, MigrationRecord, MigrationStatus } from '../../model/migrations.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { attribute, itemKind } from './item.ts';
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

/** A migration's record: what `MigrationRecord` (lib/model/migrations.ts) says, as stored. */
export const migrationRecordItem = itemKind({
  type: 'migration',
  key: keys.migration.placement,
  about: "a data migration's record (status, cursor, counts)",
  attributes: {
    name: attribute.string('name'),
    status: attribute.oneOf<MigrationStatus>('status'),
    startedAt: attribute.laterString('started_at'),
    finishedAt: attribute.laterString('finished_at'),
    /** Where its next step starts, stored as its JSON text. */
    cursor: {
      stored: 'cursor',
      read: (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as Cursor) : undefined),
      write: (c: Cursor | undefined) => (c === undefined ? undefined : JSON.stringify(c)),
    },
    counts: {
      stored: 'counts',
      read: (v: unknown) => (v as Record<string, number> | undefined) ?? {},
      write: (v: Record<string, number>) => v,
    },
    steps: attribute.counter('steps'),
    runs: attribute.counter('runs'),
    error: attribute.laterString('error'),
    /** Done without running (`recordBaseline`); absent on any other. */
    baseline: {
      stored: 'baseline',
      read: (v: unknown): boolean | undefined => (v === true ? true : undefined),
      write: (v: boolean | undefined) => v,
    },
  },
});

/** The lease of the one runner of the migrations: who holds it, until when. */
export const migrationLeaseItem = itemKind({
  type: 'migration_lease',
  key: keys.migrationLease.placement,
  about: 'who runs the data migrations now, until when',
  attributes: {
    owner: attribute.string('owner'),
    /** Milliseconds since the epoch. */
    until: attribute.number('lease_until'),
    takenAt: attribute.string('taken_at'),
  },
});

/** The names a write conditioned on the lease names: its holder as `#owner`, its end as `#until`. */
const leaseNames = { '#owner': migrationLeaseItem.stored('owner'), '#until': migrationLeaseItem.stored('until') };

/** A record as stored. */
export function migrationItem(record: MigrationRecord): Record<string, unknown> {
  return { ...keys.migration(record.name), type: migrationRecordItem.type, ...migrationRecordItem.encode(record) };
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
      for (const item of items) {
        const record: MigrationRecord = migrationRecordItem.decode(item);
        found.set(record.name, record);
      }
    },
  );
  return found;
}

/** The lease as stored: who holds it and until when (ms since the epoch); undefined if none. */
export async function readMigrationLease(): Promise<{ owner: string; until: number } | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName(), Key: keys.migrationLease(), ConsistentRead: true }));
  if (!out.Item) return undefined;
  const { owner, until } = migrationLeaseItem.decode(out.Item);
  return { owner, until };
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
          type: migrationLeaseItem.type,
          ...migrationLeaseItem.encode({ owner, until, takenAt: new Date(now).toISOString() }),
        },
        ConditionExpression: 'attribute_not_exists(PK) OR #until <= :now OR #owner = :owner',
        ExpressionAttributeNames: leaseNames,
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
        ExpressionAttributeNames: { '#owner': leaseNames['#owner'] },
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
    migrationLeaseItem.updateAt(keys.migrationLease(), { set: { until }, if: { equals: { owner } } }, LEASE_LOST),
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

/** The highest organisation id handed out (lib/db/core/sequences.ts). */
export { lastOrganisationId } from './sequences.ts';

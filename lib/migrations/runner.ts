/**
 * Runs the pending data migrations (lib/migrations/index.ts) in order, a bounded step at a time,
 * under a lease so that two runners (two deploys, a deploy and `npm run admin -- migrations:run`)
 * never run them at once. Every step's cursor and counts are written with the lease renewed, so a
 * run cut short anywhere continues from the last step written. Used by the migration function
 * (functions/migrate.ts, which invokes itself again while the run is unfinished), by `npm start`
 * and by the admin CLI.
 */
import { randomUUID } from 'node:crypto';
import {
  acquireMigrationLease,
  LEASE_LOST,
  lastOrganisationId,
  readMigrationRecords,
  recordBaseline,
  releaseMigrationLease,
  saveMigrationRecord,
} from '../db/core/migrations.ts';
import { isRefused } from '../db/core/transactions.ts';
import {
  addCounts,
  freshRecord,
  LEASE_MS,
  type Migration,
  type MigrationRecord,
  type MigrationStatus,
  pendingMigrations,
} from '../model/migrations.ts';
import { logger } from '../http/logger.ts';
import { countMetric, metricNames } from '../http/metrics.ts';
import { migrations } from './index.ts';

/** What a run tells as it goes: structured log lines and metrics by default (`defaultReporter`). */
export interface MigrationReporter {
  started(record: MigrationRecord): void;
  stepped(record: MigrationRecord, counts: Record<string, number>): void;
  finished(record: MigrationRecord): void;
  failed(record: MigrationRecord): void;
}

/**
 * Powertools log lines (`migration started|step|finished|failed`, with the migration's record) and
 * the metrics `MigrationSteps`, `MigrationsCompleted` and `MigrationFailures` (the stack alarms on
 * the last one); the caller publishes the metrics (`publishMetrics`).
 */
export const defaultReporter: MigrationReporter = {
  started: (record) => logger.info('migration started', { migration: record }),
  stepped: (record, counts) => {
    logger.info('migration step', { migration: record.name, cursor: record.cursor, counts, steps: record.steps });
    countMetric(metricNames.migrationSteps);
  },
  finished: (record) => {
    logger.info('migration finished', { migration: record });
    countMetric(metricNames.migrationsCompleted);
  },
  failed: (record) => {
    logger.error('migration failed; the next run retries it from its cursor', { migration: record });
    countMetric(metricNames.migrationFailures);
  },
};

export interface RunOptions {
  /** Who runs (the lease's holder); a fresh id by default. */
  owner?: string;
  /** No step starts after this time (ms since the epoch): the Lambda's timeout less a reserve. */
  deadline?: number;
  /** No more than this many steps in this run (tests interrupt a migration with it). */
  maxSteps?: number;
  /** The migrations (tests give their own); lib/migrations/index.ts by default. */
  registry?: readonly Migration[];
  reporter?: MigrationReporter;
}

/**
 * How a run ended: `done` (nothing pending), `unfinished` (out of time or steps: run again to
 * continue), `failed` (a step threw: recorded on the migration, later ones wait), `busy` (another
 * runner holds the lease, or took it over).
 */
export interface RunOutcome {
  state: 'done' | 'unfinished' | 'failed' | 'busy';
  /** The migrations this run worked on: their status, and the steps and counts of this run. */
  ran: { name: string; status: MigrationStatus; steps: number; counts: Record<string, number> }[];
  failed?: { name: string; error: string } | undefined;
}

/** The status of every migration of the registry, in order (`migrations:status`). */
export async function migrationStatus(registry: readonly Migration[] = migrations): Promise<MigrationRecord[]> {
  const records = await readMigrationRecords();
  return registry.map((m) => records.get(m.name) ?? freshRecord(m.name));
}

const errorText = (err: unknown) => {
  const e = err as Error;
  return `${e.name ?? 'Error'}: ${e.message ?? String(err)}`.slice(0, 1000);
};

/** Runs the pending migrations; see the module comment and `RunOutcome`. */
export async function runMigrations(options: RunOptions = {}): Promise<RunOutcome> {
  const owner = options.owner ?? randomUUID();
  const records = await readMigrationRecords();
  const pending = await pendingPastBaseline(options.registry ?? migrations, records);
  if (pending.length === 0) return { state: 'done', ran: [] };
  if (!(await acquireMigrationLease(owner, Date.now(), Date.now() + LEASE_MS))) return { state: 'busy', ran: [] };
  const run: Run = { owner, options, reporter: options.reporter ?? defaultReporter, ran: [], steps: 0 };
  try {
    for (const migration of pending) {
      const stopped = await runMigration(run, migration, records.get(migration.name) ?? freshRecord(migration.name));
      if (stopped) {
        await releaseMigrationLease(owner);
        return stopped;
      }
    }
  } catch (err) {
    // Another runner took the lease over (this one stalled past it): it carries on from the last step written.
    if (isRefused(err, LEASE_LOST)) return { state: 'busy', ran: run.ran };
    // Anything else (DynamoDB refusing a record's write after its retries): the lease goes back, so
    // that a retry (Lambda retries a failed asynchronous invocation) need not wait for it to run out.
    await releaseMigrationLease(owner).catch(() => undefined);
    throw err;
  }
  await releaseMigrationLease(owner);
  return { state: 'done', ran: run.ran };
}

/**
 * The migrations pending; on a table that never held an organisation (it holds nothing an earlier
 * release wrote), none: those never recorded are recorded as its baseline.
 */
async function pendingPastBaseline(registry: readonly Migration[], records: Map<string, MigrationRecord>) {
  const pending = pendingMigrations(registry, records);
  if (pending.length === 0 || (await lastOrganisationId()) !== 0) return pending;
  await recordBaseline(
    pending.filter((m) => !records.has(m.name)).map((m) => m.name),
    new Date().toISOString(),
  );
  return pendingMigrations(registry, await readMigrationRecords());
}

/** A run under its lease: what it worked on, and its steps so far. */
interface Run {
  owner: string;
  options: RunOptions;
  reporter: MigrationReporter;
  ran: RunOutcome['ran'];
  steps: number;
}

/** Steps one migration until it is done (undefined), or answers how the run stops (out of time or steps, a step failed). */
async function runMigration(run: Run, migration: Migration, before: MigrationRecord): Promise<RunOutcome | undefined> {
  const { options, reporter } = run;
  const save = (r: MigrationRecord) => saveMigrationRecord(run.owner, r, Date.now() + LEASE_MS);
  const stopHere = () => (options.deadline !== undefined && Date.now() >= options.deadline) || run.steps === options.maxSteps;
  if (stopHere()) return { state: 'unfinished', ran: run.ran };
  let record: MigrationRecord = {
    ...before,
    status: 'running',
    error: undefined,
    startedAt: before.startedAt ?? new Date().toISOString(),
    runs: before.runs + 1,
  };
  await save(record);
  reporter.started(record);
  const mine = { name: migration.name, status: record.status, steps: 0, counts: {} as Record<string, number> };
  run.ran.push(mine);
  for (;;) {
    if (stopHere()) return { state: 'unfinished', ran: run.ran };
    let result;
    try {
      result = await migration.step(record.cursor);
    } catch (err) {
      record = { ...record, status: 'failed', error: errorText(err) };
      mine.status = 'failed';
      await save(record);
      reporter.failed(record);
      return { state: 'failed', ran: run.ran, failed: { name: migration.name, error: record.error! } };
    }
    run.steps++;
    mine.steps++;
    mine.counts = addCounts(mine.counts, result.counts);
    const done = result.cursor === undefined;
    record = {
      ...record,
      cursor: result.cursor,
      counts: addCounts(record.counts, result.counts),
      steps: record.steps + 1,
      ...(done ? { status: 'done' as const, finishedAt: new Date().toISOString() } : {}),
    };
    await save(record);
    reporter.stepped(record, result.counts);
    if (done) {
      mine.status = 'done';
      reporter.finished(record);
      return undefined;
    }
  }
}

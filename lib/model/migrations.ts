/**
 * Data migrations: the rules of their order and of their records. A migration brings data written
 * by an earlier release to the layout this release reads (a derived record it lacks, a field it
 * lacks). It runs in bounded steps, each from the cursor the previous one stored, so that a run cut
 * short (a Lambda timeout, a crash, Ctrl-C) continues where it stopped; each step is idempotent
 * and safe while the API serves traffic (its writes are conditional on what it read). The registry
 * (lib/migrations/index.ts) lists them in order; lib/migrations/runner.ts runs them;
 * lib/db/core/migrations.ts keeps their records and the runner's lease.
 */

/** Where a migration's next step starts: opaque to the runner (a Scan position, an organisation id...). */
export type Cursor = Record<string, unknown>;

/** What one step did: where the next starts (undefined: the migration is done), and what it counted. */
export interface StepResult {
  cursor: Cursor | undefined;
  counts: Record<string, number>;
}

export interface Migration {
  /** `NNNN-what-it-does`: the number orders the migrations, the name is the record's key. */
  name: string;
  /** One line for `migrations:status` and docs/deploying.md. */
  description: string;
  /** Runs one bounded step from `cursor` (undefined: from the beginning). */
  step(cursor: Cursor | undefined): Promise<StepResult>;
}

export type MigrationStatus = 'pending' | 'running' | 'done' | 'failed';

/** A migration's record in the table (`keys.migration`). */
export interface MigrationRecord {
  name: string;
  status: MigrationStatus;
  /** When its first step started (ISO 8601 UTC); when it finished. */
  startedAt?: string | undefined;
  finishedAt?: string | undefined;
  /** Where its next step starts (only while not done). */
  cursor?: Cursor | undefined;
  /** Its steps' counts, summed over its whole run (resumptions included). */
  counts: Record<string, number>;
  steps: number;
  /** Runs that worked on it: more than one when it was resumed or retried. */
  runs: number;
  /** Why its last step failed (while failed). */
  error?: string | undefined;
  /** Done without running: the table was created by a release that writes its layout already. */
  baseline?: boolean | undefined;
}

/** A migration's name: four digits, a dash, lower-case words. */
export const MIGRATION_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Checks a registry: well-formed names, numbered in strictly increasing order (the list order is
 * the run order, and a migration added later takes the next number). Throws on a bad one.
 */
export function checkRegistry(registry: readonly Pick<Migration, 'name'>[]): void {
  let last = 0;
  for (const { name } of registry) {
    const m = MIGRATION_NAME.exec(name);
    if (!m) throw new Error(`migration name "${name}" is not NNNN-words`);
    const n = Number(m[1]);
    if (n <= last) throw new Error(`migration "${name}" is out of order: its number must be greater than ${last}`);
    last = n;
  }
}

/**
 * The version of a registry: its names in order. It changes when a migration is added, which is
 * what makes a deploy run the migrations (infra/constructs/migrations.ts).
 */
export const registryVersion = (registry: readonly Pick<Migration, 'name'>[]): string => registry.map((m) => m.name).join(',');

/** A migration with no record yet. */
export const freshRecord = (name: string): MigrationRecord => ({ name, status: 'pending', counts: {}, steps: 0, runs: 0 });

/**
 * The migrations still to run, in order: every one whose record is not done. The runner takes the
 * first; one after it never starts before it is done, for a later migration may read what an
 * earlier one writes. A failed one is retried (from its cursor) by the next run.
 */
export function pendingMigrations<M extends Pick<Migration, 'name'>>(
  registry: readonly M[],
  records: ReadonlyMap<string, MigrationRecord>,
): M[] {
  return registry.filter((m) => records.get(m.name)?.status !== 'done');
}

/** `counts` plus `more`, name by name. */
export function addCounts(counts: Record<string, number>, more: Record<string, number>): Record<string, number> {
  const out = { ...counts };
  for (const [name, n] of Object.entries(more)) out[name] = (out[name] ?? 0) + n;
  return out;
}

/** How long a runner holds the lease without renewing it (each step renews it). */
export const LEASE_MS = 90_000;

import { migrateEntry } from '../../infra/functions.ts';
import { migrationStatus, runMigrations } from '../../lib/migrations/runner.ts';
import type { Route } from '../../lib/routes.ts';
import { runAsFunction } from './permissions.ts';

/**
 * `npm start`'s data migrations: the pending ones, run to the end before the gateway listens, with
 * the migration function's grant (infra/grants.ts: migrationGrant), as the deploy runs them in
 * AWS. A local table is small (10,000 issues and 10,000 comments lacking every pointer: about two
 * minutes on DynamoDB Local): the API then answers in the new layout from its first request. A
 * failed migration is logged and recorded (`npm run admin -- migrations:status`); the API starts
 * anyway, and the next start retries it.
 */
export async function runPendingMigrations(routes: Route[], log: (line: string) => void): Promise<void> {
  const started = Date.now();
  let outcome;
  try {
    const pending = (await migrationStatus()).filter((r) => r.status !== 'done');
    if (pending.length > 0) log(`Running data migrations before listening: ${pending.map((r) => r.name).join(', ')}`);
    outcome = await runAsFunction(migrateEntry, routes, () => runMigrations());
  } catch (err) {
    log(`Data migrations could not run: ${(err as Error).message}`);
    return;
  }
  if (outcome.ran.length === 0 && outcome.state === 'done') return;
  const ran = outcome.ran.map((m) => `${m.name} ${m.status} (${m.steps} steps)`).join(', ');
  log(`Data migrations ${outcome.state} in ${Date.now() - started} ms${ran ? `: ${ran}` : ''}`);
  if (outcome.failed) log(`Data migration ${outcome.failed.name} failed: ${outcome.failed.error}`);
}

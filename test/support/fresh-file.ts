import { afterAll, vi } from 'vitest';

/**
 * The files of the shared-table project run one after another in a few long-lived workers
 * (`isolate: false`, vitest.config.ts): a new process per file cost about a second and a half of
 * CPU to start Node and vitest and to load the AWS SDK, zod and ajv again. What a file could leave
 * behind for the next one is undone after its last hook, so that each file starts as it would in
 * a process of its own:
 * - the environment, as the worker started (a file may set what its modules read, such as
 *   `CORS_ORIGINS`; test/support/env.ts sets the run's own before each file);
 * - the project's modules, evaluated anew by the next file (the configuration read on first use,
 *   the DynamoDB and S3 clients, caches, the response observers). Packages under node_modules are
 *   Node's own modules, loaded once per worker: they hold no state of the service's.
 */
const started = ((globalThis as { __envAtWorkerStart?: NodeJS.ProcessEnv }).__envAtWorkerStart ??= { ...process.env });

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in started)) delete process.env[name];
  Object.assign(process.env, started);
  vi.resetModules();
});

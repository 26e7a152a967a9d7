import { configDefaults, defineConfig } from 'vitest/config';

/**
 * A test file that reads a whole table (data migrations, rebuilds and backfills from a Scan) works
 * on a table of its own (test/support/own-table.ts), so what it reads is only what it wrote.
 */
const ownTable = [
  'test/integration/migrations.test.ts',
  'test/integration/comment-pointers.test.ts',
  'test/integration/derivations.property.test.ts',
  'test/integration/reindex.test.ts',
  'test/integration/attachment-counters.test.ts',
  'test/integration/attachment-files.test.ts',
  'test/integration/sub-issues.test.ts',
  'test/integration/token-names.test.ts',
  'test/integration/trash-purge.test.ts',
  'test/integration/webhook-secrets.test.ts',
  'test/integration/import-job-claim.test.ts',
  'test/e2e/bulk.test.ts',
  'test/e2e/cli.test.ts',
  'test/integration/custom-field-cascade.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: [
      'test/support/fresh-file.ts',
      'test/support/env.ts',
      'test/support/fast-check.ts',
      'test/support/contract-setup.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores, shared by DynamoDB Local (a JVM) and the test workers. Each worker waits on the
    // emulator much of the time: with two, the cores were idle a fifth of the run; with three, under
    // a tenth (the whole suite in 0.94x the time, docs/local-development.md).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared-table',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ownTable],
          // Its files run one after another in long-lived workers, each starting as in a process of
          // its own (test/support/fresh-file.ts): a process per file cost about 1.5 s of CPU each.
          isolate: false,
        },
      },
      // test/support/env.ts reads OWN_TABLE before any module reads the table's name.
      {
        extends: true,
        test: {
          name: 'own-table',
          include: ownTable,
          env: { OWN_TABLE: 'own' },
          setupFiles: ['test/support/own-table.ts'],
        },
      },
    ],
  },
});

import { configDefaults, defineConfig } from 'vitest/config';

/** A test file that runs over a whole table (data migrations) works on a table of its own. */
const ownTable = ['test/integration/migrations.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/env.ts', 'test/support/fast-check.ts', 'test/support/contract-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: DynamoDB Local (a JVM) and the test workers share them.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'shared-table', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...ownTable] },
      },
      // test/support/env.ts reads OWN_TABLE before any module reads the table's name.
      { extends: true, test: { name: 'own-table', include: ownTable, env: { OWN_TABLE: 'migrations' } } },
    ],
  },
});

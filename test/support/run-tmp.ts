/**
 * The name of the run's temporary folder starts with this: the global setup makes it and points
 * TMPDIR at it, its teardown removes it (test/support/global-setup.ts, test/unit/run-tmp.test.ts).
 */
export const runTmpPrefix = 'sprint-ticketing-test-run-';

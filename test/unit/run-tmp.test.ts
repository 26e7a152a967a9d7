import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTmpPrefix } from '../support/run-tmp.ts';

describe("the run's temporary folder", () => {
  it('is where a test file and the processes it starts write temporary files, removed when the run ends', () => {
    // The global setup makes it and points TMPDIR at it; its teardown removes it.
    expect(basename(tmpdir())).toMatch(new RegExp(`^${runTmpPrefix}`));
    expect(process.env.TMPDIR).toBe(tmpdir());
    expect(basename(dirname(tmpdir()))).not.toMatch(new RegExp(`^${runTmpPrefix}`));
  });
});

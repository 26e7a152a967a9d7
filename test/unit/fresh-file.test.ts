import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'fresh-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Two files that each find what a file of their own process would (no variable of the other's in
 * the environment, a module's state as first evaluated), then leave some of their own behind, and
 * note the process they ran in.
 */
const probe = (name: string) => `
import { appendFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { state } from './state.ts';

it('${name} starts as in a process of its own', () => {
  appendFileSync(${JSON.stringify(join(dir, 'ran'))}, process.pid + '\\n');
  expect(process.env.FRESH_FILE_PROBE).toBeUndefined();
  expect(state.files).toEqual([]);
  process.env.FRESH_FILE_PROBE = '${name}';
  state.files.push('${name}');
});
`;

describe('a file run after another in the same worker (test/support/fresh-file.ts)', () => {
  it('meets neither the environment nor the module state the one before left', () => {
    writeFileSync(join(dir, 'state.ts'), 'export const state = { files: [] as string[] };\n');
    writeFileSync(join(dir, 'first.test.ts'), probe('first'));
    writeFileSync(join(dir, 'second.test.ts'), probe('second'));
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.ts'], pool: 'forks', isolate: false, maxWorkers: 1, setupFiles: [${JSON.stringify(
        join(root, 'test/support/fresh-file.ts'),
      )}] } };\n`,
    );
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir], {
      cwd: dir,
      encoding: 'utf8',
      // This worker's own vitest variables left out: the run is a vitest of its own.
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST'))),
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const pids = readFileSync(join(dir, 'ran'), 'utf8').trim().split('\n');
    // Both ran, in one process: otherwise the check above would prove nothing.
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(1);
  });
});

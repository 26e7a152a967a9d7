import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/**
 * `.ci/run` up to its Java check, on a PATH that holds a Node 22+ and a `java` of our choosing, so
 * that it stops before installing anything. Only the failure paths run here; the whole script runs
 * on a fresh clone (README).
 */
const bin = mkdtempSync(join(tmpdir(), 'sts-ci-bin-'));
// A copy of the script in an empty checkout: the real checkout may already hold the `.node/` that
// an earlier `.ci/run` installed, which would hide the "older than 22" path.
const checkout = mkdtempSync(join(tmpdir(), 'sts-ci-checkout-'));
mkdirSync(join(checkout, '.ci'));
copyFileSync(join(repoRoot, '.ci/run'), join(checkout, '.ci/run'));
const ciRun = join(checkout, '.ci/run');
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(checkout, { recursive: true, force: true });
});
for (const tool of ['sed', 'head', 'dirname'])
  symlinkSync(
    spawnSync('sh', ['-c', `command -v ${tool}`])
      .stdout.toString()
      .trim(),
    join(bin, tool),
  );
symlinkSync(process.execPath, join(bin, 'node'));
writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho 10.0.0\n');
chmodSync(join(bin, 'npm'), 0o755);

function ciRunWithJava(versionOutput: string | undefined) {
  rmSync(join(bin, 'java'), { force: true });
  if (versionOutput !== undefined) {
    writeFileSync(join(bin, 'java'), `#!/bin/sh\necho '${versionOutput}' >&2\n`);
    chmodSync(join(bin, 'java'), 0o755);
  }
  return spawnSync('/bin/bash', [ciRun], {
    env: { PATH: bin, HOME: tmpdir() },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('.ci/run', () => {
  it('fails with a clear message when there is no Java', () => {
    const result = ciRunWithJava(undefined);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DynamoDB Local needs Java 17 or newer \(found: none\)/);
  });

  it('fails with a clear message when Java is older than 17, in either version style', () => {
    for (const [output, found] of [
      ['openjdk version "11.0.21" 2023-10-17', '11'],
      ['java version "1.8.0_392"', '1'],
    ]) {
      const result = ciRunWithJava(output);
      expect(result.status, output).toBe(1);
      expect(result.stderr, output).toContain(`DynamoDB Local needs Java 17 or newer (found: ${found})`);
    }
  });

  it('installs Node 24 from the npm registry when node is older than 22, and says so when that did not help', () => {
    const old = mkdtempSync(join(tmpdir(), 'sts-ci-old-'));
    try {
      for (const tool of ['sed', 'head', 'dirname']) symlinkSync(join(bin, tool), join(old, tool));
      writeFileSync(join(old, 'node'), '#!/bin/sh\ncase "$1" in -p) echo 20 ;; *) echo v20.0.0 ;; esac\n');
      writeFileSync(join(old, 'npm'), `#!/bin/sh\necho "$@" >> ${join(old, 'npm.log')}\n`);
      chmodSync(join(old, 'node'), 0o755);
      chmodSync(join(old, 'npm'), 0o755);
      const result = spawnSync('/bin/bash', [ciRun], {
        env: { PATH: old, HOME: tmpdir() },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.stdout).toContain('node v20.0.0 is older than 22: installing Node 24');
      expect(readFileSync(join(old, 'npm.log'), 'utf8')).toMatch(/^install --prefix \.node .*node@24/m);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('could not install Node.js 24');
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });

  it('reports the Node version it runs on before checking Java', () => {
    const result = ciRunWithJava('openjdk version "11.0.21" 2023-10-17');
    expect(result.stdout).toContain(`node ${process.version}`);
  });
});

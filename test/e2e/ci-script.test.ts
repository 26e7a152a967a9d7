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
// an earlier `.ci/run` installed, which would hide the "older than engines.node" path.
const checkout = mkdtempSync(join(tmpdir(), 'sts-ci-checkout-'));
mkdirSync(join(checkout, '.ci'));
copyFileSync(join(repoRoot, '.ci/run'), join(checkout, '.ci/run'));
// What its Node.js check reads: the version package.json asks for, and the check itself.
mkdirSync(join(checkout, 'tools/local'), { recursive: true });
copyFileSync(join(repoRoot, 'package.json'), join(checkout, 'package.json'));
copyFileSync(join(repoRoot, 'tools/local/node-version.js'), join(checkout, 'tools/local/node-version.js'));
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

  it('installs Node 24 from the npm registry when node is older than engines.node, and says so when that did not help', () => {
    const old = mkdtempSync(join(tmpdir(), 'sts-ci-old-'));
    try {
      for (const tool of ['sed', 'head', 'dirname']) symlinkSync(join(bin, tool), join(old, tool));
      // A Node.js 20: tools/local/node-version.js refuses it (exit 1), and it says its version.
      writeFileSync(
        join(old, 'node'),
        '#!/bin/sh\ncase "$1" in tools/local/node-version.js) exit 1 ;; *) echo v20.0.0 ;; esac\n',
      );
      writeFileSync(join(old, 'npm'), `#!/bin/sh\necho "$@" >> ${join(old, 'npm.log')}\n`);
      chmodSync(join(old, 'node'), 0o755);
      chmodSync(join(old, 'npm'), 0o755);
      const result = spawnSync('/bin/bash', [ciRun], {
        env: { PATH: old, HOME: tmpdir() },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.stdout).toContain("node v20.0.0 is older than package.json's engines.node: installing Node 24");
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

describe('.ci/run and Chromium', () => {
  /**
   * `.ci/run` past its Java check (a Java 17 stub), with `id`, `sudo` and `apt-get` stubs that log
   * what they were asked; `apt-get install` puts a Chromium at CHROMIUM_PATH unless told not to.
   * npm is the stub that only prints a version, so a run that gets past Chromium ends at once.
   */
  function ciRunForChromium(options: { uid: number; sudo: boolean; present?: boolean; installWorks?: boolean }) {
    const dir = mkdtempSync(join(tmpdir(), 'sts-ci-chromium-'));
    const tools = join(dir, 'bin');
    mkdirSync(tools);
    for (const tool of ['sed', 'head', 'dirname', 'node', 'npm']) symlinkSync(join(bin, tool), join(tools, tool));
    for (const tool of ['env', 'chmod'])
      symlinkSync(
        spawnSync('sh', ['-c', `command -v ${tool}`])
          .stdout.toString()
          .trim(),
        join(tools, tool),
      );
    const chromium = join(dir, 'chromium');
    const log = join(dir, 'calls.log');
    const stub = (name: string, body: string) => {
      writeFileSync(join(tools, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(tools, name), 0o755);
    };
    stub('java', `echo 'openjdk version "17.0.9" 2023-10-17' >&2`);
    stub('id', `echo ${options.uid}`);
    if (options.sudo) stub('sudo', `echo "sudo $*" >> ${log}\nexec "$@"`);
    stub(
      'apt-get',
      `echo "apt-get $* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >> ${log}\n` +
        (options.installWorks === false
          ? ''
          : `if [ "$1" = install ]; then echo '#!/bin/sh' > ${chromium}; chmod 755 ${chromium}; fi`),
    );
    if (options.present) {
      writeFileSync(chromium, '#!/bin/sh\n');
      chmodSync(chromium, 0o755);
    }
    const result = spawnSync('/bin/bash', [ciRun], {
      env: { PATH: tools, HOME: tmpdir(), CHROMIUM_PATH: chromium },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const calls = (() => {
      try {
        return readFileSync(log, 'utf8').trim().split('\n');
      } catch {
        return [];
      }
    })();
    rmSync(dir, { recursive: true, force: true });
    return { ...result, calls, chromium };
  }

  it('installs Debian’s chromium package, non-interactively, when running as root without one', () => {
    const result = ciRunForChromium({ uid: 0, sudo: false });
    expect(result.calls).toEqual([
      'apt-get update (DEBIAN_FRONTEND=noninteractive)',
      'apt-get install -y chromium (DEBIAN_FRONTEND=noninteractive)',
    ]);
    expect(result.stdout).toContain(`no Chromium at ${result.chromium}: installing Debian's chromium package`);
    expect(result.stdout).toContain(`chromium at ${result.chromium}`);
    expect(result.status).toBe(0);
  });

  it('installs it through sudo when not root', () => {
    const result = ciRunForChromium({ uid: 1000, sudo: true });
    expect(result.calls).toEqual([
      'sudo env DEBIAN_FRONTEND=noninteractive apt-get update',
      'apt-get update (DEBIAN_FRONTEND=noninteractive)',
      'sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium',
      'apt-get install -y chromium (DEBIAN_FRONTEND=noninteractive)',
    ]);
    expect(result.status).toBe(0);
  });

  it('fails with a clear message when it is neither root nor has sudo', () => {
    const result = ciRunForChromium({ uid: 1000, sudo: false });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('needs root or sudo. As root: apt-get update && apt-get install -y chromium');
    expect(result.calls).toEqual([]);
  });

  it('fails when the package did not bring a Chromium where the tests look for it', () => {
    const result = ciRunForChromium({ uid: 0, sudo: false, installWorks: false });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`there is still no Chromium at ${result.chromium}`);
  });

  it('installs nothing when Chromium is there', () => {
    const result = ciRunForChromium({ uid: 0, sudo: false, present: true });
    expect(result.calls).toEqual([]);
    expect(result.stdout).toContain(`chromium at ${result.chromium}`);
    expect(result.status).toBe(0);
  });
});

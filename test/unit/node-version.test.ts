import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { nodeVersionProblem } from '../../tools/local/node-version.js';

const engines = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe("npm start's Node.js check", () => {
  it('refuses a Node.js older than engines.node with one line that names both versions', () => {
    expect(engines).toBe('>=22.22.2');
    for (const old of ['20.20.2', 'v18.19.0', '21.7.3', '22.0.0', '22.22.1']) {
      const problem = nodeVersionProblem(old, engines);
      expect(problem, old).toBe(
        `npm start needs Node.js 22.22.2 or newer (package.json engines: >=22.22.2); this is Node.js ${old.replace(/^v/, '')}: see .nvmrc`,
      );
      expect(problem).not.toContain('\n');
    }
  });

  it('lets Node.js 22.22.2 and newer run', () => {
    for (const version of ['22.22.2', '22.23.0', '24.21.0', '26.1.0'])
      expect(nodeVersionProblem(version, engines), version).toBeUndefined();
  });

  it('asks for no Node.js older than a package the lock installs needs (npm install would refuse it)', () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; optional?: boolean }>;
    };
    const least = engines.replace(/^>=/, '');
    const [major, minor, patch] = least.split('.').map(Number) as [number, number, number];
    const atLeast = (v: string) => {
      const [a = 0, b = 0, c = 0] = v.split('.').map(Number);
      return major !== a ? major > a : minor !== b ? minor > b : patch >= c;
    };
    // One alternative of a range (`>=22.12.0`, `^20.19.0`, `20`, `>=20 <21`) that the least version takes.
    const takes = (alternative: string) =>
      alternative
        .trim()
        .replace(/(>=|<|\^)\s+/g, '$1')
        .split(/\s+/)
        .every((part) => {
          const m = /^(>=|\^|<)?v?(\d+(?:\.\d+){0,2})(?:\.x)?$/.exec(part);
          if (!m) return true;
          const [, op, v = ''] = m;
          if (op === '>=') return atLeast(v);
          if (op === '<') return !atLeast(v);
          return Number(v.split('.')[0]) === major && (op !== '^' || atLeast(v));
        });
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => p.engines?.node && !p.optional)
      .filter(([, p]) => !(p.engines?.node ?? '').split('||').some(takes))
      .map(([name, p]) => `${name}: ${p.engines?.node}`);
    expect(refusing).toEqual([]);
  });

  it('compares minor and patch versions when engines names them', () => {
    expect(nodeVersionProblem('22.11.9', '>=22.12.0')).toMatch(/needs Node\.js 22\.12\.0 or newer/);
    expect(nodeVersionProblem('22.12.0', '>=22.12.0')).toBeUndefined();
    expect(nodeVersionProblem('22.12.0', '^22')).toMatch(/must read ">=MAJOR/);
  });

  it('runs first in npm start, before the service and what compiles its TypeScript load', () => {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts;
    expect(scripts.start).toBe(
      'node tools/local/node-version.js && exec node --import ./tools/local/typescript.js tools/local/server.ts',
    );
  });
});

describe('npm install on an unsupported Node.js', () => {
  const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  /**
   * `npm install` (or `npm ci`) with `node`, in a copy of the manifest, lockfile and `.npmrc`, against a
   * registry nobody listens on and with no retries: a run that got as far as fetching fails on the
   * connection, one refused before fetching fails on the engine.
   */
  function install(node: string, command: 'install' | 'ci', engines?: string) {
    const dir = mkdtempSync(join(tmpdir(), 'npm-engines-'));
    for (const file of ['package-lock.json', '.npmrc']) {
      if (existsSync(join(repoRoot, file))) copyFileSync(join(repoRoot, file), join(dir, file));
    }
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
    if (engines) manifest.engines.node = engines;
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    const started = performance.now();
    const result = spawnSync(
      node,
      [npmCli, command, '--registry=http://127.0.0.1:9', '--fetch-retries=0', `--cache=${join(dir, 'cache')}`],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH, HOME: dir },
      },
    );
    return { ...result, ms: performance.now() - started, installed: existsSync(join(dir, 'node_modules')) };
  }

  it('refuses before fetching anything, naming the version package.json asks for', () => {
    for (const command of ['install', 'ci'] as const) {
      const result = install(process.execPath, command, '>=99');
      expect(result.status, command).not.toBe(0);
      expect(result.stderr, command).toContain('EBADENGINE');
      expect(result.stderr, command).toContain('Required: {"node":">=99"}');
      expect(result.stderr, command).not.toContain('ECONNREFUSED');
      expect(result.installed, command).toBe(false);
    }
  });

  const system = '/usr/bin/node';
  const systemMajor = existsSync(system)
    ? Number(execFileSync(system, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }))
    : 0;
  it.runIf(systemMajor > 0 && systemMajor < 22)(`refuses this machine's Node.js ${systemMajor} at once`, () => {
    const result = install(system, 'install');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`Required: {"node":"${engines}"}`);
    expect(result.stderr).not.toContain('ECONNREFUSED');
    expect(result.installed).toBe(false);
    console.info(`npm install on Node.js ${systemMajor}: refused in ${Math.round(result.ms)} ms`);
  });
});

describe("npm start's TypeScript (tools/local/typescript.js)", () => {
  // An enum: tsx compiles it, Node.js's own type stripping refuses it. Which one ran the file shows.
  const dir = mkdtempSync(join(tmpdir(), 'typescript-'));
  const file = join(dir, 'enum.ts');
  writeFileSync(file, 'enum Colour { Red = 1 }\nconsole.log(`compiled ${Colour.Red}`);\n');
  const run = (flags: string[]) => {
    try {
      return execFileSync(process.execPath, [...flags, '--import', './tools/local/typescript.js', file], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (err) {
      return String((err as { stderr: string }).stderr);
    }
  };

  it('leaves the sources to a Node.js that strips types itself, and does not load tsx', () => {
    expect(run([])).toMatch(/enum.*not supported in strip-only mode|ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX/s);
  });

  it('loads tsx to compile them on a Node.js that does not', () => {
    expect(run(['--no-experimental-strip-types'])).toBe('compiled 1\n');
  });
});

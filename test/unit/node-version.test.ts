import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { nodeVersionProblem } from '../../tools/local/node-version.js';

const engines = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe("npm start's Node.js check", () => {
  it('refuses a Node.js older than engines.node with one line that names both versions', () => {
    expect(engines).toBe('>=22');
    for (const old of ['20.20.2', 'v18.19.0', '21.7.3']) {
      const problem = nodeVersionProblem(old, engines);
      expect(problem, old).toBe(
        `npm start needs Node.js 22 or newer (package.json engines: >=22); this is Node.js ${old.replace(/^v/, '')}: see .nvmrc`,
      );
      expect(problem).not.toContain('\n');
    }
  });

  it('lets Node.js 22 and newer run', () => {
    for (const version of ['22.0.0', '22.22.2', '24.21.0', '26.1.0'])
      expect(nodeVersionProblem(version, engines), version).toBeUndefined();
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

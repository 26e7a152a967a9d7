import { readFileSync } from 'node:fs';
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

  it('runs first in npm start, before tsx loads', () => {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts;
    expect(scripts.start).toMatch(/^node tools\/local\/node-version\.js && exec node --import tsx /);
  });
});

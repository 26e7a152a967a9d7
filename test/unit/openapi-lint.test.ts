import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../infra/paths.ts';
import { servedDocument } from '../../lib/openapi/documents.ts';

const yaml = servedDocument('yaml');

const run = promisify(execFile);

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

/** Lints `text` (an OpenAPI document) with @redocly/cli and the repository's lint configuration. */
async function lint(text: string): Promise<Problem[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.yaml');
    writeFileSync(file, text);
    const cli = join(repoRoot, 'node_modules/@redocly/cli/bin/cli.js');
    const args = [cli, 'lint', file, '--config', join(repoRoot, 'redocly.yaml'), '--format', 'json'];
    // No telemetry and no update check: the lint runs offline, as everything in the suite.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const { stdout } = await run(process.execPath, args, { cwd: repoRoot, env, timeout: 120_000 }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
    );
    return (JSON.parse(stdout) as { problems: Problem[] }).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const describeProblem = (p: Problem) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;

describe('the OpenAPI document, linted with Redocly', () => {
  it('has no error and no warning under the recommended rules (as redocly.yaml keeps them)', async () => {
    const problems = await lint(yaml);
    expect(problems.map(describeProblem)).toEqual([]);
  }, 120_000);

  it('turns a rule off only with its reason beside it', () => {
    const config = readFileSync(join(repoRoot, 'redocly.yaml'), 'utf8');
    expect((parse(config) as { extends: string[] }).extends).toEqual(['recommended']);
    const lines = config.split('\n');
    const off = lines.flatMap((line, i) => (/^\s+[\w-]+:\s*off\s*$/.test(line) ? [i] : []));
    expect(off.length).toBeGreaterThan(0);
    for (const i of off) expect(lines[i - 1], lines[i]).toMatch(/^\s+#\s+\S/);
  });

  it('catches what it is there for: a nullable without a type is an error', async () => {
    const broken = yaml.replace(/( {8}actor_id:\n {10})type: integer\n {10}nullable: true/, '$1nullable: true');
    expect(broken).not.toBe(yaml);
    const problems = await lint(broken);
    expect(problems.map((p) => `${p.severity} ${p.ruleId}`)).toContain('error nullable-type-sibling');
  }, 120_000);
});

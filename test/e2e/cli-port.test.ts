import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { createProject } from '../../lib/domain/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** `npm run admin -- import` and `export`: the commands, their output and their refusals. */

function admin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(repoRoot, 'node_modules/.bin/tsx'), ['tools/cli/admin.ts', ...args], {
      cwd: repoRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: inject('tableName') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const fixture = join(repoRoot, 'test/fixtures/import/jira.csv');

describe('admin CLI: import and export', () => {
  it('import prints its report as one JSON document; export writes JSON Lines to a file or to stdout', async () => {
    const org = await newOrganisation();
    const caller = { orgId: org.orgId, accountId: org.admin.id, role: 'admin' as const, tokenHash: '' };
    const project = await createProject(caller, { name: 'CLI', prefix: randomPrefix() });
    const base = ['--org', String(org.orgId), '--project', String(project.id), '--format', 'jira-csv', '--file', fixture];

    const dry = await admin(['import', ...base, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, created: 4, rejected: 2 });

    const done = JSON.parse((await admin(['import', ...base])).stdout);
    expect(done).toMatchObject({ dry_run: false, created: 4, already_imported: 0 });

    const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'org.jsonl');
    const written = await admin(['export', '--org', String(org.orgId), '--out', out]);
    expect(written.code, written.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(JSON.parse(written.stdout)).toEqual({ written: out, lines: lines.length });
    expect(lines[0]).toMatchObject({ format: 'sprint-ticketing-export', version: 1 });
    expect(lines.filter((l) => l.kind === 'issue')).toHaveLength(4);

    const streamed = await admin(['export', '--org', String(org.orgId)]);
    expect(streamed.stdout.trimEnd().split('\n')).toHaveLength(lines.length);
  });

  it('refuses a missing --project, an unknown format, and a missing --file flag (exit 2, usage)', async () => {
    for (const args of [
      ['import', '--org', '1', '--format', 'jira-csv', '--file', fixture],
      ['import', '--org', '1', '--project', '1', '--format', 'xml', '--file', fixture],
      ['import', '--org', '1', '--project', '1', '--format', 'jira-csv'],
    ]) {
      const r = await admin(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/Usage/);
    }
  });
});

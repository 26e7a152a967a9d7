import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation } from '../support/api.ts';
import { log, organisationWithFiles, png } from '../support/attachment-files.ts';
import { adminCommand } from '../support/admin-cli.ts';

/** `npm run admin -- import` and `export`: the commands, their output and their refusals. */

function admin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = adminCommand(args);
    const child = spawn(command, commandArgs, {
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

/**
 * A test's bound from its work: each CLI run is a whole Node process with the TypeScript loader and
 * the data layer (a few seconds alone, several times that on a busy machine): 20 s per run.
 */
const cliRuns = (runs: number) => 10_000 + runs * 20_000;

describe('admin CLI: import and export', () => {
  it(
    'import prints its report as one JSON document; export writes JSON Lines to a file or to stdout',
    async () => {
      const org = await newOrganisation();
      const caller = { orgId: org.orgId, accountId: org.admin.id, role: 'admin' as const, tokenHash: '' };
      // The sample's keys are DI-…: with --keep-numbers they stay as they are.
      const project = await createProject(caller, { name: 'CLI', prefix: 'DI' });
      const base = ['--org', String(org.orgId), '--project', String(project.id), '--format', 'jira-csv', '--file', fixture];
      const dir = mkdtempSync(join(tmpdir(), 'import-'));
      const mapping = join(dir, 'map.json');
      writeFileSync(mapping, JSON.stringify({ people: { 'Ada Lovelace': 'ada@example.com' }, timeZone: 'Europe/Paris' }));

      const dry = await admin(['import', ...base, '--dry-run', '--keep-numbers', '--mapping', mapping]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(dry.stdout)).toMatchObject({
        dry_run: true,
        keep_numbers: true,
        created: 0,
        would_create: 6,
        rejected: 2,
      });
      // Its progress says what would be created, never "created".
      expect(dry.stderr).toMatch(/admin: import: 8 rows read, 6 would be created\n/);
      expect(dry.stderr).not.toMatch(/\d+ created/);

      const done = JSON.parse((await admin(['import', ...base, '--keep-numbers', '--mapping', mapping])).stdout);
      expect(done).toMatchObject({
        dry_run: false,
        created: 6,
        already_imported: 0,
        keys: { 'DI-127': 'DI-127', 'DI-140': 'DI-140' },
      });

      // A mapping with a key the import does not know is refused, naming it: nothing is imported.
      writeFileSync(mapping, JSON.stringify({ peoples: {} }));
      const typo = await admin(['import', ...base, '--mapping', mapping]);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/peoples/);

      const out = join(mkdtempSync(join(tmpdir(), 'export-')), 'org.jsonl');
      const written = await admin(['export', '--org', String(org.orgId), '--out', out]);
      expect(written.code, written.stderr).toBe(0);
      const lines = readFileSync(out, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(JSON.parse(written.stdout)).toEqual({ written: out, lines: lines.length });
      expect(lines[0]).toMatchObject({ format: 'sprint-ticketing-export', version: 2 });
      expect(lines.filter((l) => l.kind === 'issue')).toHaveLength(6);

      const streamed = await admin(['export', '--org', String(org.orgId)]);
      expect(streamed.stdout.trimEnd().split('\n')).toHaveLength(lines.length);

      // The file into another organisation: the same issues, keys and all.
      const target = await newOrganisation();
      const imported = await admin(['import', '--org', String(target.orgId), '--format', 'export', '--file', out]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({
        format: 'export',
        errors: [],
        keys: { 'DI-127': 'DI-127', 'DI-131': 'DI-131' },
      });
    },
    cliRuns(6),
  );

  it(
    "export --files writes the attachments' files beside the JSON Lines file; import --files re-uploads them",
    async () => {
      const source = await organisationWithFiles();
      const dir = mkdtempSync(join(tmpdir(), 'export-'));
      const [out, files] = [join(dir, 'org.jsonl'), join(dir, 'files')];
      const written = await admin(['export', '--org', String(source.org.orgId), '--out', out, '--files', files]);
      expect(written.code, written.stderr).toBe(0);
      expect(JSON.parse(written.stdout)).toMatchObject({
        written: out,
        files: { folder: files, files: 2, bytes: png.length + log.length, missing: [] },
      });
      expect(readFileSync(join(files, `${source.screenshot.id}-screen_shot.png`)).equals(png)).toBe(true);

      const target = await newOrganisation();
      const imported = await admin([
        'import',
        '--org',
        String(target.orgId),
        '--format',
        'export',
        '--file',
        out,
        '--files',
        files,
      ]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({
        errors: [],
        attachments: { restored: 2, already_imported: 0, left_out: [] },
      });
    },
    cliRuns(2),
  );

  it(
    'refuses a missing --project, an unknown format, a missing --file flag, and --files beside another format (exit 2, usage)',
    async () => {
      for (const args of [
        ['import', '--org', '1', '--project', '1', '--format', 'jira-csv', '--file', fixture, '--files', '/tmp'],
        ['import', '--org', '1', '--format', 'jira-csv', '--file', fixture],
        ['import', '--org', '1', '--project', '1', '--format', 'xml', '--file', fixture],
        ['import', '--org', '1', '--project', '1', '--format', 'jira-csv'],
      ]) {
        const r = await admin(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toMatch(/Usage/);
      }
    },
    cliRuns(4),
  );
});

import { describe, expect, it } from 'vitest';
import { createIssue } from '../../lib/services/issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { importExport } from '../../lib/services/import-export/import-export.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** An export file's import: the checks of the whole file before any write, and issue numbers already taken. */

const callerOf = (org: { orgId: number; admin: { id: number } }): Principal => ({
  orgId: org.orgId,
  accountId: org.admin.id,
  role: 'admin',
  tokenHash: '',
  name: 'Ada Admin',
});

async function exportedFile(orgId: number) {
  let text = '';
  for await (const line of exportOrganisation(orgId)) text += `${line}\n`;
  return text;
}

/** An organisation of one project (prefix `prefix`) with `count` issues, and its export file. */
async function source(prefix: string, count: number) {
  const org = await newOrganisation();
  const project = await createProject(callerOf(org), { name: 'Source', prefix });
  for (let i = 1; i <= count; i++)
    await createIssue(callerOf(org), { projectId: project.id, sprintId: null }, { title: `Issue ${i}` });
  return { org, file: await exportedFile(org.orgId) };
}

/** What an organisation holds, as its export shows it (the header's time aside, and with it the end line's digest). */
const contents = async (orgId: number) => (await exportedFile(orgId)).split('\n').slice(1, -2);

describe('import of an export file', () => {
  it('refuses a file cut short, a line taken out, a line edited, lines after the end, and another version, writing nothing', async () => {
    const { file } = await source(randomPrefix(), 3);
    const lines = file.trimEnd().split('\n');
    const target = await newOrganisation();
    const before = await contents(target.orgId);
    const edited = lines.map((l) => l.replace('"Issue 2"', '"Issue 2, edited"'));
    expect(edited.join('\n')).not.toBe(lines.join('\n'));
    for (const [text, error] of [
      [lines.slice(0, -1).join('\n'), /no end line: it was cut short/],
      [lines.slice(0, -3).join('\n'), /no end line: it was cut short/],
      [[...lines.slice(0, 3), ...lines.slice(4)].join('\n'), /counts are not the file's .*: it was cut or changed/],
      [edited.join('\n'), /digest is not its end line's: it was changed/],
      [[...lines, lines[1]].join('\n'), /comes after the end line/],
      [
        lines.map((l, i) => (i === 0 ? l.replace('"version":2', '"version":1') : l)).join('\n'),
        /version 1; this import reads version 2/,
      ],
      [`${lines[0]}\n{"kind":"issue",`, /line 2 is not JSON/],
    ] as const) {
      await expect(importExport({ orgId: target.orgId }, [text])).rejects.toThrow(error);
      expect(await contents(target.orgId)).toEqual(before);
    }
  });

  it('into a project that already has issues: a number that is taken gets a new one, and the report maps every old key', async () => {
    const prefix = randomPrefix();
    const { file } = await source(prefix, 4);
    const target = await newOrganisation();
    const project = await createProject(callerOf(target), { name: 'Already here', prefix });
    for (const title of ['Theirs 1', 'Theirs 2'])
      await createIssue(callerOf(target), { projectId: project.id, sprintId: null }, { title });
    const report = await importExport({ orgId: target.orgId }, [file]);
    expect(report.errors).toEqual([]);
    // Numbers 1 and 2 are theirs: those issues get the next ones; 3 and 4 are kept.
    expect(report.keys).toEqual({
      [`${prefix}-1`]: `${prefix}-5`,
      [`${prefix}-2`]: `${prefix}-6`,
      [`${prefix}-3`]: `${prefix}-3`,
      [`${prefix}-4`]: `${prefix}-4`,
    });
    const issues = (await exportedFile(target.orgId))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.kind === 'issue');
    expect(issues.map((i) => [i.issue_number, i.title])).toEqual([
      [`${prefix}-1`, 'Theirs 1'],
      [`${prefix}-2`, 'Theirs 2'],
      [`${prefix}-5`, 'Issue 1'],
      [`${prefix}-6`, 'Issue 2'],
      [`${prefix}-3`, 'Issue 3'],
      [`${prefix}-4`, 'Issue 4'],
    ]);
    const next = await createIssue(callerOf(target), { projectId: project.id, sprintId: null }, { title: 'Next' });
    expect(next.issue_number).toBe(`${prefix}-7`);
  });

  it('a dry run reads and maps the whole file and writes nothing', async () => {
    const { file } = await source(randomPrefix(), 2);
    const target = await newOrganisation();
    const before = await contents(target.orgId);
    const report = await importExport({ orgId: target.orgId, dryRun: true }, [file]);
    expect(report).toMatchObject({ dry_run: true, errors: [] });
    // The source's two accounts would be created.
    expect(report.accounts_created).toHaveLength(2);
    expect(await contents(target.orgId)).toEqual(before);
  });
});

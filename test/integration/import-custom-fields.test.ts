import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../lib/model/principal.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { listFields } from '../../lib/services/custom-fields.ts';
import { importIssues } from '../../lib/services/import-export/import.ts';
import { listIssues } from '../../lib/services/issues.ts';
import { listSprints } from '../../lib/services/sprints.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** A Jira CSV's `Custom field (…)` columns become typed custom fields; `Custom field (Rank)` orders the lists. */

const csv = readFileSync(new URL('../fixtures/import/jira-custom-fields.csv', import.meta.url), 'utf8');

async function setup() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Custom', prefix: randomPrefix() });
  return { caller, orgId: org.orgId, projectId: project.id };
}

const warningsOf = (report: { warnings: { key: string; warnings: string[] }[] }, key: string) =>
  report.warnings.find((w) => w.key === key)?.warnings.join('\n') ?? '';

const expectedFields = [
  { name: 'Severity', key: 'severity', type: 'select', options: ['High', 'Low', 'Medium'], column: 'Custom field (Severity)' },
  { name: 'Estimate', key: 'estimate', type: 'number', options: [], column: 'Custom field (Estimate)' },
  { name: 'Target date', key: 'target_date', type: 'date', options: [], column: 'Custom field (Target date)' },
  { name: 'Spec', key: 'spec', type: 'url', options: [], column: 'Custom field (Spec)' },
  {
    name: 'Platforms',
    key: 'platforms',
    type: 'multi_select',
    options: ['iOS', 'Web', 'Android'],
    column: 'Custom field (Platforms)',
  },
  { name: 'Customer', key: 'customer', type: 'text', options: [], column: 'Custom field (Customer)' },
];

describe('Jira custom field columns', () => {
  it('a dry run lists the fields it would make with their types, the columns it skips and why, and the values it cannot read', async () => {
    const { caller, orgId, projectId } = await setup();
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', dryRun: true }, [csv]);
    expect(report.created_fields).toEqual(expectedFields);
    expect(report.skipped_columns?.map((s) => s.name)).toEqual([
      'Custom field (Rank)',
      'Custom field (Development)',
      'Custom field ([CHART] Date of First Response)',
      'Custom field (Team)',
      'Custom field (Approvals)',
    ]);
    expect(report.skipped_columns?.find((s) => s.name === 'Custom field (Team)')?.reason).toMatch(/JSON/);
    expect(report.unknown_columns.map((c) => c.name)).not.toContain('Custom field (Severity)');
    expect(report.unknown_columns).toContainEqual({ name: 'Custom field (Empty)', values: 0 });
    expect(warningsOf(report, 'CF-3')).toMatch(/Custom field \(Estimate\) "99999999999999999" left out/);
    expect(warningsOf(report, 'CF-4')).toMatch(/Custom field \(Customer\) "x+\.\.\." left out: is too long/);
    expect(report.would_create).toBe(6);
    // Nothing made.
    expect(await listFields(caller, projectId)).toEqual([]);
  });

  it('makes the fields, fills each row by key, and orders each list by rank (unranked last, stable)', async () => {
    const { caller, orgId, projectId } = await setup();
    const report = await importIssues({ orgId, projectId, format: 'jira-csv' }, [csv]);
    expect(report.rejected_rows).toEqual([]);
    expect(report.created).toBe(6);
    expect(report.created_fields).toEqual(expectedFields);
    const fields = await listFields(caller, projectId);
    expect(fields.map((f) => [f.key, f.type, f.options.map((o) => o.name)])).toEqual(
      expectedFields.map((f) => [f.key, f.type, f.options]),
    );

    const list = async (sprintId: number | null) =>
      (await listIssues(caller, { projectId, sprintId }, { page: 1, perPage: 100 })).items;
    const backlog = await list(null);
    const [sprint] = (await listSprints(caller, projectId, { page: 1, perPage: 100 })).items;
    const inSprint = await list(sprint!.id);
    const keys = (issues: Issue[]) => issues.map((i) => i.source_key);
    expect(keys(inSprint)).toEqual(['CF-3', 'CF-1']);
    expect(keys(backlog)).toEqual(['CF-6', 'CF-2', 'CF-4', 'CF-5']);

    const byKey = new Map([...backlog, ...inSprint].map((i) => [i.source_key, i.custom_fields]));
    expect(byKey.get('CF-1')).toEqual({
      severity: 'High',
      estimate: 3,
      target_date: '2026-11-21',
      spec: 'https://example.com/a',
      platforms: ['iOS', 'Web'],
      customer: 'Acme',
    });
    expect(byKey.get('CF-2')).toEqual({
      severity: 'Low',
      estimate: 1.5,
      target_date: '2026-12-01',
      spec: 'https://example.com/b',
      platforms: ['Android'],
      customer: 'Beta',
    });
    // An unreadable value is left empty, the rest of the row taken.
    expect(byKey.get('CF-3')).toMatchObject({ estimate: null, target_date: '2026-11-22', customer: 'Gamma' });
    expect(byKey.get('CF-4')).toMatchObject({ severity: 'Medium', customer: null, platforms: ['iOS'] });
    expect(byKey.get('CF-5')).toMatchObject({ platforms: ['iOS', 'Web'], estimate: null });
    expect(byKey.get('CF-6')).toMatchObject({ target_date: '2026-11-30', estimate: 4 });

    // A second run makes no field again and no issue.
    const again = await importIssues({ orgId, projectId, format: 'jira-csv' }, [csv]);
    expect(again.created).toBe(0);
    expect(again.created_fields).toBeUndefined();
    expect(await listFields(caller, projectId)).toHaveLength(6);
  });
});

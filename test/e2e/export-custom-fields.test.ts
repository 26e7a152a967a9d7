import { describe, expect, it } from 'vitest';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { importExport } from '../../lib/services/import-export/import-export.ts';
import { apiClient, newOrganisation, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';

/** Custom fields through an export and its import (docs/import-export.md): definitions, then values by key and option name. */

const gateway = useGateway();

type Line = Record<string, any>;

async function ok(res: Promise<{ status: number; body: any }>, status = 201) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

async function exported(orgId: number): Promise<Line[]> {
  const lines: Line[] = [];
  for await (const line of exportOrganisation(orgId)) lines.push(JSON.parse(line) as Line);
  return lines;
}

/** A field's definition as GET …/fields answers it, but its ids. */
const withoutIds = ({ id: _id, project_id: _project, options, ...f }: Line) => ({
  ...f,
  options: options.map(({ id: _option, ...o }: Line) => o),
});

describe('custom fields in an export', () => {
  it('come back exactly: a field of every type, and issues holding values of each, in a fresh organisation', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const me = (await ok(admin.get('/api/v1/me'), 200)).account.id as number;
    const other = await ok(
      admin.post('/api/v1/accounts', { account: { name: 'Field Person', email: `field-${randomPrefix()}@example.com` } }),
    );
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Fields', prefix: randomPrefix() } }));
    const base = `/api/v1/projects/${project.id}`;
    const fields = [
      { name: 'Customer', type: 'text', description: 'Who asked', required: true },
      { name: 'Estimate', key: 'est', type: 'number' },
      { name: 'Target date', type: 'date' },
      {
        name: 'Severity',
        type: 'select',
        options: [{ name: 'Low', color: '#00ff00' }, { name: 'High', color: '#ff0000' }, { name: 'Critical' }],
      },
      {
        name: 'Platforms',
        type: 'multi_select',
        options: [{ name: 'iOS' }, { name: 'Web', color: '#0000ff' }, { name: 'Android' }],
      },
      { name: 'Reviewer', type: 'account' },
      { name: 'Spec', type: 'url' },
      { name: 'Signed off', type: 'checkbox' },
    ];
    for (const field of fields) await ok(admin.post(`${base}/fields`, { field }));
    // An option deleted and one added after: the option ids are no longer in creation order of names.
    const severity = (await ok(admin.get(`${base}/fields`), 200)).find((f: Line) => f.key === 'severity');
    await ok(
      admin.patch(`${base}/fields/${severity.id}`, {
        field: { options: [{ name: 'Blocker', color: '#111111' }, ...severity.options.filter((o: Line) => o.name !== 'Low')] },
      }),
      200,
    );
    const values = [
      {
        customer: 'Acme — 日本語',
        est: 3.5,
        target_date: '2027-02-28',
        severity: 'Blocker',
        platforms: ['Web', 'iOS'],
        reviewer: other.account.id,
        spec: 'https://example.com/spec?a=1',
        signed_off: true,
      },
      { customer: 'Beta', est: -2, severity: 'High', platforms: ['Android'], reviewer: me, signed_off: false },
      { customer: 'Gamma' },
    ];
    const issues: Line[] = [];
    for (const [i, custom_fields] of values.entries())
      issues.push(await ok(admin.post(`${base}/issues`, { issue: { title: `Issue ${i}`, custom_fields } })));
    expect(issues[0]!.custom_fields).toMatchObject({ severity: 'Blocker', platforms: ['iOS', 'Web'] });

    const target = await newOrganisation();
    const lines = await exported(org.orgId);
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    const projectLine = lines.find((l) => l.kind === 'project');
    expect(projectLine?.custom_fields.map((f: Line) => f.key)).toEqual([
      'customer',
      'est',
      'target_date',
      'severity',
      'platforms',
      'reviewer',
      'spec',
      'signed_off',
    ]);

    const report = await importExport({ orgId: target.orgId }, [text]);
    expect(report.errors).toEqual([]);
    const prefix = project.prefix as string;
    expect(report.projects[prefix]?.created_fields?.map((f) => f.type)).toEqual([
      'text',
      'number',
      'date',
      'select',
      'multi_select',
      'account',
      'url',
      'checkbox',
    ]);
    expect(report.projects[prefix]?.rejected_rows).toEqual([]);
    const again = apiClient(gateway.baseUrl, target.admin.token);
    const newProject = report.ids.projects[String(project.id)];
    const newBase = `/api/v1/projects/${newProject}`;
    const before = (await ok(admin.get(`${base}/fields`), 200)) as Line[];
    const after = (await ok(again.get(`${newBase}/fields`), 200)) as Line[];
    expect(after.map(withoutIds)).toEqual(before.map(withoutIds));

    for (const issue of issues) {
      const newId = report.ids.issues[String(issue.id)];
      const now = await ok(again.get(`${newBase}/issues/${newId}`), 200);
      const expected = { ...issue.custom_fields };
      // An account value names the same person here: the account the import mapped.
      if (typeof expected.reviewer === 'number') expected.reviewer = report.ids.accounts[String(expected.reviewer)];
      expect(now.custom_fields, issue.title).toEqual(expected);
      expect(now.updated_at).toBe(issue.updated_at);
    }

    // A run again makes no field twice and no issue again.
    const rerun = await importExport({ orgId: target.orgId }, [text]);
    expect(rerun.errors).toEqual([]);
    expect(rerun.projects[prefix]?.created_fields).toBeUndefined();
    expect(await ok(again.get(`${newBase}/fields`), 200)).toHaveLength(8);
  }, 120_000);
});

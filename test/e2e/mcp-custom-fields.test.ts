import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, ok, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

/**
 * Custom fields through the MCP server (docs/custom-fields.md): get_workspace names each project's
 * fields (key, name, type, options), create_issue and update_issue set `custom_fields` by a
 * field's name or key, and a value the field does not take is a tool error naming the field and the
 * nearest option, changing nothing.
 */

const gateway = useGateway();

describe('MCP server: custom fields', () => {
  it(
    "get_workspace lists each project's fields; create_issue and update_issue set values by name or key",
    { timeout: 90_000 },
    async () => {
      const org = await newOrganisation();
      const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
      const rest = apiClient(gateway.baseUrl, org.admin.token);
      try {
        const { project } = await mcp.ok('create_project', { name: 'Fielded', prefix: randomPrefix() });
        const { project: plain } = await mcp.ok('create_project', { name: 'Plain', prefix: randomPrefix() });
        const p = `/api/v1/projects/${project.id}`;
        await ok(
          rest.post(`${p}/fields`, {
            field: { name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high' }], required: true },
          }),
        );
        await ok(
          rest.post(`${p}/fields`, {
            field: { name: 'Platforms', type: 'multi_select', options: [{ name: 'ios' }, { name: 'android' }] },
          }),
        );
        await ok(rest.post(`${p}/fields`, { field: { name: 'Target release', type: 'date' } }));
        await ok(rest.post(`${p}/fields`, { field: { name: 'Customer', key: 'cust', type: 'text' } }));

        const workspace = await mcp.ok('get_workspace');
        const fielded = workspace.projects.find((x: { id: number }) => x.id === project.id);
        expect(fielded.fields).toEqual([
          { key: 'severity', name: 'Severity', type: 'select', required: true, options: ['low', 'high'] },
          { key: 'platforms', name: 'Platforms', type: 'multi_select', options: ['ios', 'android'] },
          { key: 'target_release', name: 'Target release', type: 'date' },
          { key: 'cust', name: 'Customer', type: 'text' },
        ]);
        expect(workspace.projects.find((x: { id: number }) => x.id === plain.id).fields).toEqual([]);

        // By name (any case) and by key.
        const { issue } = await mcp.ok('create_issue', {
          project_id: project.id,
          title: 'Crash on launch',
          custom_fields: { Severity: 'high', platforms: ['Android', 'ios'], 'TARGET RELEASE': '2027-01-15', Customer: 'ACME' },
        });
        const shown = { severity: 'high', platforms: ['ios', 'android'], target_release: '2027-01-15', cust: 'ACME' };
        expect(issue.custom_fields).toEqual(shown);
        expect((await rest.get(`/api/v1/issues/${issue.issue_number}`)).body.custom_fields).toEqual(shown);

        const { issue: updated } = await mcp.ok('update_issue', {
          issue_number: issue.issue_number,
          custom_fields: { severity: 'LOW', Platforms: [], cust: null },
        });
        expect(updated.custom_fields).toEqual({ severity: 'low', platforms: null, target_release: '2027-01-15', cust: null });
        const { issue: again } = await mcp.ok('update_issue', {
          issue_number: issue.issue_number,
          custom_fields: { 'Target Release': '2027-02-01', platforms: ['android'] },
        });
        expect(again.custom_fields).toEqual({
          severity: 'low',
          platforms: ['android'],
          target_release: '2027-02-01',
          cust: null,
        });

        // A wrong option names the field and the nearest option; nothing changes.
        const wrong = await mcp.error('update_issue', { issue_number: issue.issue_number, custom_fields: { Severity: 'hgh' } });
        expect(wrong).toContain("custom_fields.severity: 'hgh' is no option of Severity (did you mean 'high'?)");
        const wrongMulti = await mcp.error('update_issue', {
          issue_number: issue.issue_number,
          custom_fields: { platforms: ['andriod'] },
        });
        expect(wrongMulti).toContain("'andriod' is no option of Platforms (did you mean 'android'?)");
        const unknown = await mcp.error('update_issue', { issue_number: issue.issue_number, custom_fields: { sevrity: 'high' } });
        expect(unknown).toContain("unknown field 'sevrity' (did you mean 'severity'?)");
        expect((await mcp.ok('get_issue', { issue_number: issue.issue_number })).issue.custom_fields).toEqual(
          again.custom_fields,
        );

        // A create without a required field, or with a wrong option, makes nothing.
        expect(await mcp.error('create_issue', { project_id: project.id, title: 'No severity' })).toContain(
          'custom_fields.severity: is required',
        );
        expect(
          await mcp.error('create_issue', { project_id: project.id, title: 'Bad', custom_fields: { severity: 'hihg' } }),
        ).toContain("did you mean 'high'?");
        expect((await mcp.ok('list_issues', { project_id: project.id, sprint_id: null })).issues).toHaveLength(1);
      } finally {
        await mcp.close();
      }
    },
  );
});

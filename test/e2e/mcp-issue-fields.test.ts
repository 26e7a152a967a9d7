import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

const gateway = useGateway();

describe('MCP server: priority, type and due date', () => {
  it('sets each field through create_issue and update_issue, and filters on each through list_issues and my_issues', async () => {
    const org = await newOrganisation();
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const rest = apiClient(gateway.baseUrl, org.admin.token);
    try {
      const { project } = await mcp.ok('create_project', { name: 'Apollo', prefix: randomPrefix() });
      const { sprint } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Sprint 1' });
      const at = { project_id: project.id, sprint_id: sprint.id };
      const me = org.admin.id;

      const { issue: plain } = await mcp.ok('create_issue', { ...at, title: 'plain', assignee_id: me });
      expect(plain).toMatchObject({ priority: 'none', type: 'task', due_date: null });
      const { issue: bug } = await mcp.ok('create_issue', {
        ...at,
        title: 'bug',
        priority: 'urgent',
        type: 'bug',
        due_date: '2027-03-01',
        assignee_id: me,
      });
      expect(bug).toMatchObject({ priority: 'urgent', type: 'bug', due_date: '2027-03-01' });
      const { issue: story } = await mcp.ok('create_issue', { ...at, title: 'story', type: 'story', due_date: '2027-04-01' });

      // Each field on its own through update_issue; the REST API shows the same.
      await mcp.ok('update_issue', { issue_number: plain.issue_number, priority: 'high' });
      await mcp.ok('update_issue', { issue_number: plain.issue_number, type: 'epic' });
      const { issue: updated } = await mcp.ok('update_issue', { issue_number: plain.issue_number, due_date: '2027-02-01' });
      expect(updated).toMatchObject({ priority: 'high', type: 'epic', due_date: '2027-02-01' });
      expect((await rest.get(`/api/v1/issues/${plain.issue_number}`)).body).toMatchObject({
        priority: 'high',
        type: 'epic',
        due_date: '2027-02-01',
      });
      const { issue: cleared } = await mcp.ok('update_issue', { issue_number: story.issue_number, due_date: null });
      expect(cleared.due_date).toBeNull();

      // Bad values are tool errors with the REST messages, and change nothing.
      expect(await mcp.error('update_issue', { issue_number: bug.issue_number, due_date: '2027-02-30' })).toContain('due_date');
      expect(await mcp.error('create_issue', { ...at, title: 'x', priority: 'critical' })).toContain('priority');
      expect((await mcp.ok('get_issue', { issue_number: bug.issue_number })).issue.due_date).toBe('2027-03-01');

      const titles = (out: { issues: { title: string }[] }) => out.issues.map((i) => i.title);
      expect(titles(await mcp.ok('list_issues', { ...at, priority: ['urgent', 'high'] }))).toEqual(['plain', 'bug']);
      expect(titles(await mcp.ok('list_issues', { ...at, type: ['story'] }))).toEqual(['story']);
      expect(titles(await mcp.ok('list_issues', { ...at, due_before: '2027-03-01' }))).toEqual(['plain', 'bug']);
      expect(titles(await mcp.ok('list_issues', { ...at, due_after: '2027-03-01' }))).toEqual(['bug']);
      expect(
        titles(await mcp.ok('list_issues', { ...at, type: ['bug', 'epic'], assignee_id: me, due_after: '2027-02-15' })),
      ).toEqual(['bug']);
      const filtered = await mcp.call('list_issues', { ...at, priority: ['none'] });
      expect(filtered.dbCalls).toBeLessThanOrEqual(3);
      expect(titles(filtered.result.structuredContent as { issues: { title: string }[] })).toEqual(['story']);

      expect(titles(await mcp.ok('my_issues', { priority: ['urgent'] }))).toEqual(['bug']);
      expect(titles(await mcp.ok('my_issues', { type: ['epic'] }))).toEqual(['plain']);
      expect(titles(await mcp.ok('my_issues', { due_before: '2027-02-01' }))).toEqual(['plain']);
      expect(titles(await mcp.ok('my_issues', { due_after: '2027-02-02', status: ['todo'] }))).toEqual(['bug']);
      expect(titles(await mcp.ok('my_issues', { type: ['story'] }))).toEqual([]);
      expect(await mcp.error('my_issues', { priority: ['critical'] })).toBeTruthy();
    } finally {
      await mcp.close();
    }
  });
});

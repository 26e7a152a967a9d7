import { describe, expect, it } from 'vitest';
import { newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

/** Sub-issues through the MCP tools, with the official client: set a parent, list sub-issues, filter by parent. */

const gateway = useGateway();

interface Issue {
  id: number;
  issue_number: string;
  parent_id: number | null;
  sub_issues_summary: { total: number; done: number; story_points: number; completed_story_points: number };
}

describe('MCP server: sub-issues', () => {
  it('sets a parent on create_issue and update_issue, lists sub-issues, and filters list_issues by parent', async () => {
    const org = await newOrganisation();
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const { project } = await mcp.ok('create_project', { name: 'Tools', prefix: randomPrefix() });
    const create = async (args: Record<string, unknown>) =>
      (await mcp.ok<{ issue: Issue }>('create_issue', { project_id: project.id, title: 't', ...args })).issue;
    const parent = await create({ title: 'Epic' });
    const a = await create({ parent_id: parent.id, story_points: 3, assignee_id: org.admin.id });
    expect(a.parent_id).toBe(parent.id);
    const b = await create({ story_points: 2, status: 'done' });
    const updated = await mcp.ok<{ issue: Issue }>('update_issue', { issue_number: b.issue_number, parent_id: parent.id });
    expect(updated.issue.parent_id).toBe(parent.id);

    const got = await mcp.ok<{ issue: Issue }>('get_issue', { issue_number: parent.issue_number });
    expect(got.issue.sub_issues_summary).toEqual({ total: 2, done: 1, story_points: 5, completed_story_points: 2 });

    const listed = await mcp.ok<{ sub_issues: { id: number }[]; total: number; next_cursor: string | null }>('list_sub_issues', {
      issue: parent.issue_number.toLowerCase(),
      limit: 1,
    });
    expect(listed.sub_issues.map((c) => c.id)).toEqual([a.id]);
    expect(listed.total).toBe(2);
    const rest = await mcp.ok<{ sub_issues: { id: number }[]; next_cursor: string | null }>('list_sub_issues', {
      issue: parent.issue_number,
      cursor: listed.next_cursor,
    });
    expect(rest.sub_issues.map((c) => c.id)).toEqual([b.id]);
    expect(rest.next_cursor).toBeNull();

    const children = await mcp.ok<{ issues: Issue[] }>('list_issues', {
      project_id: project.id,
      sprint_id: null,
      parent_id: parent.id,
    });
    expect(children.issues.map((i) => i.id)).toEqual([a.id, b.id]);
    const tops = await mcp.ok<{ issues: Issue[] }>('list_issues', { project_id: project.id, sprint_id: null, parent_id: null });
    expect(tops.issues.map((i) => i.id)).toEqual([parent.id]);
    // The rules, as the REST API words them.
    expect(await mcp.error('update_issue', { issue_number: parent.issue_number, parent_id: a.id })).toContain(
      'parent_id must not be one of the sub-issues of this issue',
    );
    expect(await mcp.error('create_issue', { project_id: project.id, title: 'x', parent_id: 999_999_999 })).toContain(
      'parent_id must be an issue of this project',
    );
    expect(await mcp.error('list_sub_issues', { issue: 'ZZZZ-99999' })).toContain('not found');
    expect(await mcp.error('list_sub_issues', { issue: 'x'.repeat(5000) })).toContain('not found');
    await mcp.close();
  });
});

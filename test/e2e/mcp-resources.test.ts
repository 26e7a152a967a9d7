import { describe, expect, it } from 'vitest';
import { newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

const gateway = useGateway();

async function projectWithSprint() {
  const org = await newOrganisation();
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
  const prefix = randomPrefix();
  const { project } = await mcp.ok('create_project', { name: 'Apollo', prefix });
  const { sprint } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Sprint 1' });
  const at = { project_id: project.id, sprint_id: sprint.id };
  const todo = (await mcp.ok('create_issue', { ...at, title: 'Todo', status: 'todo', story_points: 3 })).issue;
  const doing = (await mcp.ok('create_issue', { ...at, title: 'Doing', status: 'in_progress', assignee_id: 'me' })).issue;
  const backlog = (await mcp.ok('create_issue', { project_id: project.id, title: 'Later', story_points: 5, priority: 'high' }))
    .issue;
  return { org, mcp, prefix, project, sprint, todo, doing, backlog };
}

describe('MCP: resources', () => {
  it('offers the active sprint of each project and an issue by number, through the SDK client', async () => {
    const { org, mcp, prefix, project, sprint, todo, doing } = await projectWithSprint();
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'attachment://{issue_number}/{attachment_id}',
      'issue://{issue_number}',
      'sprint://{project_prefix}/active',
    ]);
    const { resources } = await mcp.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: `sprint://${prefix}/active`, mimeType: 'application/json' })]);

    // No active sprint yet: an error that says so.
    await expect(mcp.client.readResource({ uri: `sprint://${prefix}/active` })).rejects.toThrow(/no active sprint/);
    await mcp.ok('activate_sprint', { project_id: project.id, sprint_id: sprint.id });
    const read = await mcp.client.readResource({ uri: `sprint://${prefix.toLowerCase()}/active` });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content.mimeType).toBe('application/json');
    const active = JSON.parse(content.text);
    expect(active.sprint).toMatchObject({ id: sprint.id, status: 'active', name: 'Sprint 1' });
    expect(active.issues_by_status.todo).toEqual([expect.objectContaining({ issue_number: todo.issue_number, story_points: 3 })]);
    expect(active.issues_by_status.in_progress).toEqual([
      expect.objectContaining({ issue_number: doing.issue_number, assignee_id: org.admin.id }),
    ]);
    expect(active.issues_by_status.backlog).toEqual([]);
    expect(active).toMatchObject({ issues_count: 2, truncated: false });

    const issue = await mcp.client.readResource({ uri: `issue://${todo.issue_number}` });
    expect(JSON.parse((issue.contents[0] as { text: string }).text)).toEqual(
      (await mcp.ok('get_issue', { issue_number: todo.issue_number })).issue,
    );
    await expect(mcp.client.readResource({ uri: `issue://${prefix}-999` })).rejects.toThrow(/not found/);
    await expect(mcp.client.readResource({ uri: 'sprint://ZZZZ/active' })).rejects.toThrow(/not found/);

    // Another organisation sees none of it.
    const other = await mcpClient(gateway.baseUrl, (await newOrganisation()).admin.token);
    expect((await other.client.listResources()).resources).toEqual([]);
    await expect(other.client.readResource({ uri: `issue://${todo.issue_number}` })).rejects.toThrow(/not found/);
    await other.close();
    await mcp.close();
  });
});

describe('MCP: prompts', () => {
  it('offers plan_sprint with the backlog and velocity, and sprint_review with the report', async () => {
    const { mcp, prefix, project, sprint, backlog } = await projectWithSprint();
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['plan_sprint', 'sprint_review']);
    expect(prompts.find((p) => p.name === 'sprint_review')?.arguments).toEqual([
      expect.objectContaining({ name: 'project', required: true }),
      expect.objectContaining({ name: 'sprint', required: false }),
    ]);

    const plan = await mcp.client.getPrompt({ name: 'plan_sprint', arguments: { project: prefix } });
    const planText = (plan.messages[0]?.content as { text: string }).text;
    expect(plan.messages[0]?.role).toBe('user');
    expect(planText).toContain(`- ${backlog.issue_number} [task, high, 5 pt] Later`);
    expect(planText).toContain('No sprint has been completed yet');
    expect(planText).toContain('create_sprint');

    await expect(mcp.client.getPrompt({ name: 'sprint_review', arguments: { project: prefix } })).rejects.toThrow(
      /Completed sprint not found/,
    );
    await mcp.ok('activate_sprint', { project_id: project.id, sprint_id: sprint.id });
    await mcp.ok('complete_sprint', { project_id: project.id, sprint_id: sprint.id });
    const reviews: Record<string, string>[] = [
      { project: prefix },
      { project: 'Apollo', sprint: 'Sprint 1' },
      { project: String(project.id), sprint: String(sprint.id) },
    ];
    for (const args of reviews) {
      const review = await mcp.client.getPrompt({ name: 'sprint_review', arguments: args });
      const text = (review.messages[0]?.content as { text: string }).text;
      expect(text, JSON.stringify(args)).toContain('Write the review of sprint "Sprint 1"');
      expect(text).toContain('"carried_over"');
    }
    const again = await mcp.client.getPrompt({ name: 'plan_sprint', arguments: { project: 'apollo' } });
    expect((again.messages[0]?.content as { text: string }).text).toMatch(/Velocity: \d+ story points/);
    await mcp.close();
  });

  it('are read-only: a read_only connection has them', async () => {
    const { org, prefix } = await projectWithSprint();
    const readOnly = await mcpClient(gateway.baseUrl, org.member.token, '?read_only=true');
    expect((await readOnly.client.getPrompt({ name: 'plan_sprint', arguments: { project: prefix } })).messages).toHaveLength(1);
    expect((await readOnly.client.listResources()).resources).toHaveLength(1);
    await readOnly.close();
  });
});

import { describe, expect, it } from 'vitest';
import { apiClient, followPages, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

/** The batch tools (create_issues, update_issues) with the official client: items on their own, dry runs. */

const gateway = useGateway();

interface Result {
  status: number;
  issue?: Record<string, unknown> & { id: number; issue_number: string; position: number; title: string };
  version?: number;
  error?: string;
}
interface Batch {
  dry_run: boolean;
  results: Result[];
}

/** A result without what a dry run cannot know before the write (its times, a create's id). */
const comparable = (r: Result) => {
  if (!r.issue) return r;
  const { created_at: _c, updated_at: _u, started_at: _s, completed_at: _d, id, ...issue } = r.issue;
  // A dry run's create has id 0: ids are handed out as issues are written.
  return { ...r, issue: { ...issue, id: r.status === 201 ? 0 : id } };
};

async function setUp() {
  const org = await newOrganisation();
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
  const rest = apiClient(gateway.baseUrl, org.admin.token);
  const { project } = await mcp.ok('create_project', { name: 'Batch', prefix: randomPrefix() });
  const { sprint } = await mcp.ok('create_sprint', { project_id: project.id, name: 'S1' });
  const titles = async (path: string) =>
    (await followPages<{ title: string }>(rest, `/api/v1/projects/${project.id}${path}?per_page=100`)).items.map((i) => i.title);
  return { org, mcp, project, sprint, titles };
}

describe('MCP server: batch tools', () => {
  it("declare their items as the single tool's arguments, and that tool is listed beside them", async () => {
    const org = await newOrganisation();
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const { tools } = await mcp.client.listTools();
    for (const [batch, single] of [
      ['create_issues', 'create_issue'],
      ['update_issues', 'update_issue'],
    ]) {
      const items = (tools.find((t) => t.name === batch)?.inputSchema.properties?.items ?? {}) as { items?: object };
      expect(items.items, batch).toEqual({ type: 'object', description: `${single}'s arguments` });
      expect(tools.find((t) => t.name === single)?.inputSchema.properties, single).toHaveProperty('title');
    }
    await mcp.close();
  });

  it('create_issues: each item succeeds or fails on its own, in order; a dry run gives the same answers and writes nothing', async () => {
    const { org, mcp, project, sprint, titles } = await setUp();
    const items = [
      { project_id: project.id, title: 'Backlog one', assignee_id: org.admin.id, story_points: 3 },
      { project_id: project.id, sprint_id: sprint.id, title: 'In the sprint', status: 'in_progress' },
      { project_id: project.id, title: '' },
      { project_id: project.id, title: 'Nobody assigned', assignee_id: 987_654 },
      { project_id: 999_999, title: 'No such project' },
      { project_id: project.id, title: 'Backlog two', priority: 'high' },
      // A run into one list, written together: its bad item fails alone, the places close up.
      { project_id: project.id, title: 'Backlog three' },
      { project_id: project.id, title: 'Unknown label', labels: ['nope'] },
      { project_id: project.id, title: 'Backlog four', assignee_id: org.admin.id },
    ];
    const dry = await mcp.ok<Batch>('create_issues', { items, dry_run: true });
    expect(dry.dry_run).toBe(true);
    expect(await titles('/issues')).toEqual([]);
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual([]);

    const real = await mcp.ok<Batch>('create_issues', { items });
    expect(real.results.map((r) => r.status)).toEqual([201, 201, 422, 422, 404, 201, 201, 422, 201]);
    expect(real.results[8]!.issue).toMatchObject({ title: 'Backlog four', position: 4 });
    expect(real.results[8]!.issue!.issue_number).toBe(real.results[0]!.issue!.issue_number.replace(/-1$/, '-5'));
    expect(real.results[2]!.error).toMatch(/^Validation failed: title /);
    expect(real.results[3]!.error).toBe('Validation failed: assignee_id must be an account of this organisation');
    expect(real.results[4]!.error).toBe('Project not found');
    expect(real.results[5]!.issue).toMatchObject({ title: 'Backlog two', position: 2, priority: 'high' });
    expect(dry.results.map(comparable)).toEqual(real.results.map(comparable));
    expect(await titles('/issues')).toEqual(['Backlog one', 'Backlog two', 'Backlog three', 'Backlog four']);
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual(['In the sprint']);
  });

  it('update_issues: items by number or id, expected_version per item, each answered on its own; a dry run writes nothing', async () => {
    const { mcp, project, sprint, titles } = await setUp();
    const made = await mcp.ok<Batch>('create_issues', {
      items: ['A', 'B', 'C'].map((title) => ({ project_id: project.id, title })),
    });
    const [a, b, c] = made.results.map((r) => r.issue!);
    const items = [
      { issue_number: a!.issue_number, status: 'done', story_points: 5 },
      { project_id: project.id, issue_id: b!.id, title: 'B renamed', expected_version: made.results[1]!.version },
      { issue_number: c!.issue_number, title: 'Stale', expected_version: 99 },
      { issue_number: `${a!.issue_number.split('-')[0]}-999`, title: 'Nobody' },
      { issue_number: a!.issue_number, story_points: -1 },
      { project_id: project.id, issue_id: c!.id, sprint_id: null, priority: 'urgent' },
    ];
    const dry = await mcp.ok<Batch>('update_issues', { items, dry_run: true });
    expect(await titles('/issues')).toEqual(['A', 'B', 'C']);
    const real = await mcp.ok<Batch>('update_issues', { items });
    expect(real.results.map((r) => r.status)).toEqual([200, 200, 412, 404, 422, 200]);
    expect(real.results[0]!.issue).toMatchObject({ status: 'done', story_points: 5 });
    expect(real.results[1]!.issue).toMatchObject({ title: 'B renamed' });
    expect(real.results[5]!.issue).toMatchObject({ priority: 'urgent' });
    expect(dry.results.map(comparable)).toEqual(real.results.map(comparable));
    expect(await titles('/issues')).toEqual(['A', 'B renamed', 'C']);
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual([]);
  });

  it('items take names and "me" as the single tools do: a prefix, "active", an account name; an unknown name fails its item alone', async () => {
    const { org, mcp, project, sprint, titles } = await setUp();
    await mcp.ok('activate_sprint', { project_id: project.id, sprint_id: sprint.id });
    const items = [
      { project_id: project.prefix.toLowerCase(), sprint_id: 'active', title: 'Mine', assignee_id: 'me' },
      { project_id: project.prefix, title: 'By name', assignee_id: 'Ada Admin' },
      { project_id: project.prefix, title: 'Nobody', assignee_id: 'No Such Person' },
    ];
    const real = await mcp.ok<Batch>('create_issues', { items });
    expect(real.results.map((r) => r.status)).toEqual([201, 201, 404]);
    expect(real.results[0]!.issue).toMatchObject({ sprint_id: sprint.id, assignee_id: org.admin.id });
    expect(real.results[1]!.issue).toMatchObject({ sprint_id: null, assignee_id: org.admin.id });
    expect(real.results[2]!.error).toMatch(/No Such Person/);
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual(['Mine']);
    const updated = await mcp.ok<Batch>('update_issues', {
      items: [
        { issue_number: real.results[0]!.issue!.issue_number, title: 'Mine, renamed', assignee_id: 'me' },
        { issue_number: real.results[1]!.issue!.issue_number, assignee_id: 'No Such Person' },
      ],
    });
    expect(
      updated.results.map((r) => r.status),
      JSON.stringify(updated.results),
    ).toEqual([200, 404]);
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual(['Mine, renamed']);
  });

  it('refuses an unknown argument, in a single tool and in a batch item, naming it and the one meant, and writes nothing', async () => {
    const { mcp, project, sprint, titles } = await setUp();
    expect(await mcp.error('create_issue', { project_id: project.id, sprint_id: sprint.id, titel: 'Typo' })).toContain(
      "create_issue has an unknown argument 'titel': did you mean 'title'?",
    );
    expect(await mcp.error('create_sprint', { project_id: project.id, name: 'S2', startDate: '2026-03-02' })).toContain(
      "create_sprint has an unknown argument 'startDate': did you mean 'start_date'?",
    );
    const batch = await mcp.ok<Batch>('create_issues', {
      items: [
        { project_id: project.id, sprint_id: sprint.id, title: 'Kept' },
        { project_id: project.id, sprint_id: sprint.id, title: 'Typo', storyPoints: 3 },
      ],
    });
    expect(batch.results.map((r) => r.status)).toEqual([201, 422]);
    expect(batch.results[1]!.error).toContain("create_issue has an unknown argument 'storyPoints': did you mean 'story_points'?");
    expect(await titles(`/sprints/${sprint.id}/issues`)).toEqual(['Kept']);
    expect((await mcp.ok('list_sprints', { project_id: project.id })).sprints.map((s: { name: string }) => s.name)).toEqual([
      'S1',
    ]);
  });

  it('refuses more than 50 items, and none, as a whole', async () => {
    const { mcp, project } = await setUp();
    const many = Array.from({ length: 51 }, (_, i) => ({ project_id: project.id, title: `T${i}` }));
    for (const items of [many, []]) {
      const outcome = await mcp.call('create_issues', { items });
      expect(outcome.result.isError).toBe(true);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { apiClient, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

const gateway = useGateway();

/** An organisation with accounts whose names overlap ("Ada Admin", "Ada Lovelace") and two projects. */
async function fixture() {
  const org = await newOrganisation();
  const tag = Math.random().toString(36).slice(2, 8);
  const ada = await createAccountInOrg(org.orgId, { name: 'Ada Lovelace', email: `ada-${tag}@example.com`, role: 'member' });
  const grace = await createAccountInOrg(org.orgId, { name: 'Grace Hopper', email: `grace-${tag}@example.com`, role: 'member' });
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
  const prefix = randomPrefix();
  const apollo = (await mcp.ok('create_project', { name: 'Apollo', prefix })).project;
  const other = (await mcp.ok('create_project', { name: 'Apollo Mobile', prefix: randomPrefix() })).project;
  return { org, mcp, ada: ada.account, grace: grace.account, apollo, other, prefix, tag };
}

describe('MCP: names and "me" where ids go', () => {
  it('takes a project by prefix (any case) or name, an assignee as "me", a name or an e-mail', async () => {
    const { org, mcp, grace, apollo, prefix, tag } = await fixture();
    const mine = await mcp.call('create_issue', { project_id: prefix.toLowerCase(), title: 'Mine', assignee_id: 'me' });
    expect(mine.result.structuredContent).toMatchObject({ issue: { project_id: apollo.id, assignee_id: org.admin.id } });
    // A prefix is one GetItem more than the ids; "me" costs nothing.
    const byIds = await mcp.call('create_issue', { project_id: apollo.id, title: 'Ids', assignee_id: org.admin.id });
    expect(mine.dbCalls).toBe(byIds.dbCalls + 1);
    const cases: [unknown, number][] = [
      ['Grace', grace.id],
      ['grace hopper', grace.id],
      ['hop', grace.id],
      [`grace-${tag}@example.com`, grace.id],
      ['Mo', org.member.id],
      [grace.id, grace.id],
    ];
    for (const [assignee, id] of cases) {
      const { issue } = await mcp.ok('create_issue', { project_id: 'Apollo', title: `For ${assignee}`, assignee_id: assignee });
      expect(issue.assignee_id, String(assignee)).toBe(id);
      expect(issue.project_id).toBe(apollo.id);
    }
    // The same on updates and on list filters.
    const updated = await mcp.ok('update_issue', {
      issue_number: (byIds.result.structuredContent as any).issue.issue_number,
      assignee_id: 'Grace',
    });
    expect(updated.issue.assignee_id).toBe(grace.id);
    const assigned = await mcp.ok('list_issues', { project_id: prefix, sprint_id: null, assignee_id: 'me' });
    expect(assigned.issues.map((i: { title: string }) => i.title)).toEqual(['Mine']);
    await mcp.close();
  });

  it('refuses an ambiguous name with the candidates, and an unknown one naming it', async () => {
    const { org, mcp, ada, apollo, other, prefix } = await fixture();
    expect(await mcp.error('create_issue', { project_id: prefix, title: 'x', assignee_id: 'Ada' })).toBe(
      `Validation failed: assignee_id "Ada" matches 2 accounts: Ada Admin (id ${org.admin.id}), Ada Lovelace (id ${ada.id}); pass the id`,
    );
    expect(await mcp.error('create_issue', { project_id: prefix, title: 'x', assignee_id: 'Zed' })).toBe(
      'Account "Zed" not found',
    );
    // An exact name wins over names it begins: "Apollo" is one project, "Apo" two.
    expect((await mcp.ok('get_project', { project_id: 'apollo' })).project.id).toBe(apollo.id);
    expect(await mcp.error('get_project', { project_id: 'Apo' })).toBe(
      `Validation failed: project_id "Apo" matches 2 projects: Apollo (id ${apollo.id}), Apollo Mobile (id ${other.id}); pass the id`,
    );
    expect(await mcp.error('get_project', { project_id: 'Nowhere' })).toBe('Project "Nowhere" not found');
    // Nothing was written by the refused calls.
    expect((await mcp.ok('list_issues', { project_id: apollo.id, sprint_id: null })).issues).toEqual([]);
    await mcp.close();
  });

  it('takes "active" and sprint names for a sprint, in the project of the call or of the issue', async () => {
    const { mcp, apollo, prefix } = await fixture();
    expect(await mcp.error('create_issue', { project_id: prefix, title: 'x', sprint_id: 'active' })).toBe(
      'Sprint "active" not found: the project has no active sprint',
    );
    const first = (await mcp.ok('create_sprint', { project_id: prefix, name: 'Sprint 1' })).sprint;
    const second = (await mcp.ok('create_sprint', { project_id: prefix, name: 'Sprint 2' })).sprint;
    await mcp.ok('activate_sprint', { project_id: prefix, sprint_id: 'sprint 1' });
    expect((await mcp.ok('get_sprint', { project_id: apollo.id, sprint_id: 'active' })).sprint).toMatchObject({
      id: first.id,
      status: 'active',
    });
    const { issue } = await mcp.ok('create_issue', { project_id: prefix, title: 'In the sprint', sprint_id: 'active' });
    expect(issue.sprint_id).toBe(first.id);
    // move_issue names only the issue: "Sprint 2" is looked for in its project.
    const moved = await mcp.ok('move_issue', { issue_number: issue.issue_number, to_sprint_id: 'Sprint 2' });
    expect(moved.issue.sprint_id).toBe(second.id);
    expect((await mcp.ok('move_issue', { issue_number: issue.issue_number, to_sprint_id: 'active' })).issue.sprint_id).toBe(
      first.id,
    );
    expect(await mcp.error('get_sprint', { project_id: prefix, sprint_id: 'Sprint' })).toBe(
      `Validation failed: sprint_id "Sprint" matches 2 sprints: Sprint 1 (id ${first.id}), Sprint 2 (id ${second.id}); pass the id`,
    );
    expect(await mcp.error('get_sprint', { project_id: prefix, sprint_id: 'Sprint 9' })).toBe('Sprint "Sprint 9" not found');
    // Two active sprints: "active" is ambiguous.
    await mcp.ok('activate_sprint', { project_id: prefix, sprint_id: second.id });
    expect(await mcp.error('list_issues', { project_id: prefix, sprint_id: 'active' })).toBe(
      `Validation failed: sprint_id "active" matches 2 active sprints: Sprint 1 (id ${first.id}), Sprint 2 (id ${second.id}); pass the id`,
    );
    await mcp.close();
  });
});

/** A new project's states: one per category, named after it (docs/workflows.md). */
const defaults = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'].map((name, i) => ({
  id: i + 1,
  name,
  status: name,
  category: name,
}));

describe('MCP: get_workspace', () => {
  it('answers the caller, projects with their active sprint and labels, accounts and the issue values in one call', async () => {
    const { org, mcp, ada, grace, apollo, other, prefix } = await fixture();
    const sprint = (await mcp.ok('create_sprint', { project_id: prefix, name: 'Now' })).sprint;
    await mcp.ok('activate_sprint', { project_id: prefix, sprint_id: sprint.id });
    await mcp.ok('create_sprint', { project_id: prefix, name: 'Later' });
    await mcp.ok('create_label', { project_id: prefix, name: 'bug' });
    const admin = apiClient(gateway.baseUrl, org.admin.token);
    const review = await admin.post(`/api/v1/projects/${apollo.id}/states`, {
      state: { name: 'In review', category: 'in_progress' },
    });
    expect(review.status).toBe(201);
    const call = await mcp.call('get_workspace');
    const ws = call.result.structuredContent as any;
    expect(ws.me).toEqual({ id: org.admin.id, name: 'Ada Admin', role: 'admin' });
    expect(ws.organisation).toEqual({ id: org.orgId, name: expect.any(String) });
    expect(ws.projects).toEqual([
      {
        id: apollo.id,
        prefix,
        name: 'Apollo',
        active_sprints: [{ id: sprint.id, name: 'Now', start_date: expect.any(String), end_date: null }],
        labels: ['bug'],
        labels_count: 1,
        states: [
          ...defaults.slice(0, 3),
          { id: review.body.id, name: 'In review', status: 'in_review', category: 'in_progress' },
          ...defaults.slice(3),
        ],
        fields: [],
      },
      {
        id: other.id,
        prefix: other.prefix,
        name: 'Apollo Mobile',
        active_sprints: [],
        labels: [],
        labels_count: 0,
        states: defaults,
        fields: [],
      },
    ]);
    // An issue put in a state by its name, as REST takes it.
    const put = await mcp.ok('create_issue', { project_id: prefix, title: 'Reviewed', status: 'In review' });
    expect(put.issue).toMatchObject({ status: 'in_review', state_id: review.body.id, status_category: 'in_progress' });
    const typo = await mcp.call('create_issue', { project_id: prefix, title: 'Typo', status: 'In reveiw' });
    expect(typo.result.isError).toBe(true);
    expect(JSON.stringify(typo.result.content)).toContain('in_review');
    expect(ws).toMatchObject({ projects_count: 2, next_cursor: null, accounts_count: 4 });
    expect(ws.accounts).toEqual(
      expect.arrayContaining([
        { id: ada.id, name: 'Ada Lovelace' },
        { id: grace.id, name: 'Grace Hopper' },
        { id: org.member.id, name: 'Mo Member' },
      ]),
    );
    expect(ws.statuses).toEqual(['backlog', 'todo', 'in_progress', 'done', 'cancelled']);
    expect(ws.priorities).toContain('urgent');
    expect(ws.types).toContain('bug');
    // Declared cost: the authorizer, one round (projects with the organisation, accounts: 3 calls),
    // then one Query per project shown.
    expect(call.dbCalls).toBe(1 + 3 + 2);
    // Paged by projects.
    const page1 = await mcp.ok('get_workspace', { limit: 1 });
    expect(page1.projects.map((p: { id: number }) => p.id)).toEqual([apollo.id]);
    const page2 = await mcp.ok('get_workspace', { limit: 1, cursor: page1.next_cursor });
    expect(page2.projects.map((p: { id: number }) => p.id)).toEqual([other.id]);
    expect(await mcp.error('get_workspace', { limit: 26 })).toContain('limit');
    await mcp.close();
  });
});

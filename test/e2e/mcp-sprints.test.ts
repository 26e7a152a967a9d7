import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';
import { mcpClient, type McpTestClient } from '../support/mcp.ts';
import { seedProject } from '../support/seed.ts';

const gateway = useGateway();

const today = () => new Date().toISOString().slice(0, 10);

async function orgWithMcp() {
  const org = await newOrganisation();
  const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
  return { org, mcp, rest: apiClient(gateway.baseUrl, org.admin.token) };
}

async function projectWithSprint(mcp: McpTestClient) {
  const prefix = randomPrefix();
  const { project } = await mcp.ok('create_project', { name: 'Apollo', prefix });
  const { sprint } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Sprint 1' });
  return { project, sprint, prefix };
}

describe('MCP server: the sprint flow', () => {
  it('runs a whole sprint through the tools (project, sprint, issues, activate, move, comment, complete) and the REST API shows it', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { me: account } = await mcp.ok('get_workspace');
    expect(account.id).toBe(org.admin.id);

    const prefix = randomPrefix();
    const { project } = await mcp.ok('create_project', { name: 'Apollo', prefix });
    const created = await mcp.call('create_sprint', {
      project_id: project.id,
      name: 'Sprint 1: Lift-off!',
      end_date: '2099-12-31',
      sprint_lead_id: org.member.id,
    });
    expect(created.dbCalls).toBeLessThanOrEqual(4);
    const sprint = (created.result.structuredContent as { sprint: { id: number } }).sprint;
    expect(sprint).toMatchObject({
      name: 'Sprint 1: Lift-off!',
      slug: 'sprint-1-lift-off',
      status: 'planning',
      project_id: project.id,
    });

    const first = await mcp.call('create_issue', {
      project_id: project.id,
      sprint_id: sprint.id,
      title: 'Build the rocket',
      description: '## Parts\n- engine',
      story_points: 8,
      assignee_id: account.id,
    });
    // Creating in a sprint reads the sprint beside the allocation, for the answer's place.
    expect(first.dbCalls).toBeLessThanOrEqual(5);
    const rocket = (first.result.structuredContent as { issue: { id: number; issue_number: string } }).issue;
    expect(rocket).toMatchObject({ issue_number: `${prefix}-1`, status: 'todo', sprint_id: sprint.id, story_points: 8 });
    const { issue: fuel } = await mcp.ok('create_issue', {
      project_id: project.id,
      sprint_id: sprint.id,
      title: 'Fuel',
      story_points: 3,
    });
    const { issue: pad } = await mcp.ok('create_issue', { project_id: project.id, title: 'Launch pad', story_points: 5 });
    expect(pad).toMatchObject({ issue_number: `${prefix}-3`, sprint_id: null, status: 'backlog' });

    // Pull the backlog issue into the sprint, by its number.
    const moved = await mcp.ok('move_issue', { issue_number: `${prefix}-3`, to_sprint_id: sprint.id });
    expect(moved.issue).toMatchObject({ id: pad.id, sprint_id: sprint.id });
    expect((await rest.get(`/api/v1/projects/${project.id}/issues`)).body).toEqual([]);

    const activated = await mcp.call('activate_sprint', { project_id: project.id, sprint_id: sprint.id });
    expect(activated.dbCalls).toBeLessThanOrEqual(4);
    expect(activated.result.structuredContent).toMatchObject({ sprint: { status: 'active', start_date: today() } });

    const started = await mcp.ok('update_issue', {
      project_id: project.id,
      sprint_id: sprint.id,
      issue_id: rocket.id,
      status: 'in_progress',
    });
    expect(started.issue.started_at).toEqual(expect.any(String));
    const done = await mcp.call('update_issue', {
      project_id: project.id,
      sprint_id: sprint.id,
      issue_id: rocket.id,
      status: 'done',
    });
    expect(done.dbCalls).toBeLessThanOrEqual(4);
    expect(done.result.structuredContent).toMatchObject({ issue: { status: 'done', completed_at: expect.any(String) } });

    const commented = await mcp.call('add_comment', { issue_number: rocket.issue_number, body: 'Engine **mounted**.' });
    const { comment } = commented.result.structuredContent as { comment: { id: number } };
    expect(comment).toMatchObject({
      body: 'Engine **mounted**.',
      issue_id: rocket.id,
      author_id: account.id,
      author_name: account.name,
    });
    await mcp.ok('edit_comment', { comment_id: comment.id, body: 'Engine mounted and tested.' });
    const comments = await mcp.ok('list_comments', { project_id: project.id, sprint_id: sprint.id, issue_id: rocket.id });
    expect(comments).toMatchObject({
      total: 1,
      next_cursor: null,
      comments: [{ id: comment.id, body: 'Engine mounted and tested.' }],
    });

    const summary = await mcp.ok('get_sprint_summary', { project_id: project.id, sprint_id: sprint.id });
    expect(summary).toMatchObject({
      status: 'active',
      open: { issues: 2, story_points: 8 },
      done: { issues: 1, story_points: 8 },
      cancelled: { issues: 0, story_points: 0 },
      percent_done: 50,
    });

    const completed = await mcp.call('complete_sprint', { project_id: project.id, sprint_id: sprint.id });
    expect(completed.result.structuredContent).toMatchObject({
      sprint: {
        status: 'completed',
        actual_end_date: today(),
        issues_count: 1,
        total_story_points: 8,
        completed_story_points: 8,
      },
    });

    // What the REST API shows afterwards.
    const restSprint = await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}`);
    expect(restSprint.body).toMatchObject({
      status: 'completed',
      actual_end_date: today(),
      completed_story_points: 8,
      issues_count: 1,
    });
    const sprintIssues = await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}/issues`);
    expect(sprintIssues.body.map((i: { id: number }) => i.id)).toEqual([rocket.id]);
    const backlog = await rest.get(`/api/v1/projects/${project.id}/issues`);
    expect(backlog.body.map((i: { id: number }) => i.id)).toEqual([fuel.id, pad.id]);
    const restComment = await rest.get(`/api/v1/comments/${comment.id}`);
    expect(restComment.body).toMatchObject({ body: 'Engine mounted and tested.', author_id: account.id });
    expect((await rest.get(`/api/v1/projects/${project.id}`)).body.sprints_count).toBe(1);

    // The tools see the same thing.
    const again = await mcp.ok('list_issues', { project_id: project.id, sprint_id: null });
    expect(again.issues.map((i: { id: number }) => i.id)).toEqual([fuel.id, pad.id]);
    expect(await mcp.error('complete_sprint', { project_id: project.id, sprint_id: sprint.id })).toBe(
      (await rest.post(`/api/v1/projects/${project.id}/sprints/${sprint.id}/complete`)).body.error,
    );
    await mcp.close();
  });
});

describe('MCP server: sprint tools', () => {
  it('lists sprints with a status filter, reads and updates them, and refuses a second activation with the REST message', async () => {
    const { mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const { sprint: second } = await mcp.ok('create_sprint', {
      project_id: project.id,
      name: 'Sprint 2',
      start_date: '2099-01-05',
    });
    await mcp.ok('activate_sprint', { project_id: project.id, sprint_id: sprint.id });

    const all = await mcp.call('list_sprints', { project_id: project.id });
    expect(all.dbCalls).toBeLessThanOrEqual(3);
    expect((all.result.structuredContent as any).sprints.map((s: { id: number }) => s.id)).toEqual([sprint.id, second.id]);
    const planning = await mcp.ok('list_sprints', { project_id: project.id, status: ['planning'] });
    expect(planning).toMatchObject({ total: 2, next_cursor: null });
    expect(planning.sprints.map((s: { id: number }) => s.id)).toEqual([second.id]);

    const got = await mcp.call('get_sprint', { project_id: project.id, sprint_id: second.id });
    expect(got.dbCalls).toBeLessThanOrEqual(3);
    expect(got.result.structuredContent).toEqual({
      sprint: (await rest.get(`/api/v1/projects/${project.id}/sprints/${second.id}`)).body,
      version: expect.any(Number),
    });

    const updated = await mcp.ok('update_sprint', {
      project_id: project.id,
      sprint_id: second.id,
      name: 'Sprint Two',
      end_date: '2099-01-19',
    });
    expect(updated.sprint).toMatchObject({
      name: 'Sprint Two',
      slug: 'sprint-two',
      start_date: '2099-01-05',
      end_date: '2099-01-19',
    });
    expect((await rest.get(`/api/v1/projects/${project.id}/sprints/${second.id}`)).body.name).toBe('Sprint Two');

    const restRefusal = await rest.post(`/api/v1/projects/${project.id}/sprints/${sprint.id}/activate`);
    expect(restRefusal.status).toBe(422);
    expect(await mcp.error('activate_sprint', { project_id: project.id, sprint_id: sprint.id })).toBe(restRefusal.body.error);
    expect(await mcp.error('update_sprint', { project_id: project.id, sprint_id: second.id, end_date: '2098-01-01' })).toBe(
      'Validation failed: end_date must be on or after start_date',
    );
    expect(
      await mcp.error('create_sprint', { project_id: project.id, name: 'Bad', start_date: '2099-02-02', end_date: '2099-01-01' }),
    ).toContain('must be on or after start_date');
    expect(await mcp.error('get_sprint', { project_id: project.id, sprint_id: 999_999 })).toBe('Sprint not found');
    await mcp.close();
  });

  it('deletes a sprint only for admins, and the REST API no longer finds it', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const member = await mcpClient(gateway.baseUrl, org.member.token);
    expect(await member.error('delete_sprint', { project_id: project.id, sprint_id: sprint.id })).toBe(
      'Only admins may delete sprints',
    );
    expect(await mcp.ok('delete_sprint', { project_id: project.id, sprint_id: sprint.id })).toEqual({
      deleted: true,
      sprint_id: sprint.id,
    });
    expect((await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}`)).status).toBe(404);
    // Into the trash: list_trash shows it, and restore brings it back once its issues are out (docs/trash.md).
    const id = `sprint-${sprint.id}`;
    await eventually(
      `${id} held in the trash`,
      async () => (await mcp.ok('list_trash')).trash.find((t: { id: string }) => t.id === id)?.state,
      (state) => state === 'held',
      bounds.cascade(),
    );
    const back = await mcp.ok('restore', { id });
    expect(back.restored).toMatchObject({ kind: 'sprint', item: { id: sprint.id }, restore: { id, state: 'restoring' } });
    await eventually(
      `${id} back`,
      async () => (await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}`)).status,
      (status) => status === 200,
      bounds.cascade(),
    );
    expect((await mcp.ok('list_trash')).trash).toEqual([]);
    await member.close();
    await mcp.close();
  });

  it('summarises a sprint from its counters: open, done and cancelled issues and points', async () => {
    const { mcp } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const at = { project_id: project.id, sprint_id: sprint.id };
    await mcp.ok('create_issue', { ...at, title: 'a', story_points: 5, status: 'done' });
    await mcp.ok('create_issue', { ...at, title: 'b', story_points: 3, status: 'in_progress' });
    await mcp.ok('create_issue', { ...at, title: 'c', story_points: 2, status: 'cancelled' });
    await mcp.ok('create_issue', { ...at, title: 'd' });
    const summarised = await mcp.call('get_sprint_summary', at);
    expect(summarised.dbCalls).toBeLessThanOrEqual(2);
    expect(summarised.result.structuredContent).toEqual({
      project_id: project.id,
      sprint_id: sprint.id,
      status: 'planning',
      issues_count: 4,
      total_story_points: 10,
      completed_story_points: 5,
      open: { issues: 2, story_points: 3 },
      done: { issues: 1, story_points: 5 },
      cancelled: { issues: 1, story_points: 2 },
      percent_done: 50,
    });
    await mcp.close();
  });

  it('reads a sprint summary with the same DynamoDB calls whatever the size of the sprint and the project', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    await mcp.ok('create_issue', { project_id: project.id, sprint_id: sprint.id, title: 'only one' });
    const small = await mcp.call('get_sprint_summary', { project_id: project.id, sprint_id: sprint.id });
    const big = await seedProject(org.orgId, project.id, org.admin.id, {
      sprints: 3,
      issuesPerSprint: 250,
      backlog: 250,
      commentsPerIssue: 0,
    });
    const bigSprint = big.sprintIds[0] as number;
    expect((await rest.get(`/api/v1/projects/${project.id}/sprints/${bigSprint}`)).body.issues_count).toBe(250);
    const large = await mcp.call('get_sprint_summary', { project_id: project.id, sprint_id: bigSprint });
    expect(large.result.isError).toBeFalsy();
    expect(large.dbCalls).toBe(small.dbCalls);
    expect(large.dbCalls).toBeLessThanOrEqual(2);
    await mcp.close();
  });

  it('completes with a carry-over and reads the report, the velocity and the burndown', async () => {
    const { mcp } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const at = { project_id: project.id, sprint_id: sprint.id };
    const { sprint: next } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Sprint 2' });
    const { issue: open } = await mcp.ok('create_issue', { ...at, title: 'open', story_points: 3 });
    await mcp.ok('create_issue', { ...at, title: 'done', story_points: 5, status: 'done' });
    expect(await mcp.error('get_burndown', at)).toMatch(/planning/);
    await mcp.ok('activate_sprint', at);
    const burndown = await mcp.ok('get_burndown', at);
    expect(burndown).toMatchObject({ committed_story_points: 3, days: [{ date: today(), remaining_story_points: 3 }] });
    expect(await mcp.error('get_sprint_report', at)).toMatch(/not found/);
    expect(await mcp.error('complete_sprint', { ...at, carry_over_sprint_id: sprint.id })).toMatch(/carry_over\.sprint_id/);
    const { sprint: completed } = await mcp.ok('complete_sprint', { ...at, carry_over_sprint_id: next.id });
    expect(completed.report).toMatchObject({
      carried_over: { issues: 1, story_points: 3 },
      carried_over_to: { sprint_id: next.id },
    });
    const { report } = await mcp.ok('get_sprint_report', at);
    expect(report).toEqual(completed.report);
    const { issues } = await mcp.ok('list_issues', { project_id: project.id, sprint_id: next.id });
    expect(issues.map((i: { id: number }) => i.id)).toEqual([open.id]);
    const velocity = await mcp.ok('get_velocity', { project_id: project.id });
    expect(velocity).toMatchObject({
      sprints: [{ sprint_id: sprint.id, committed_story_points: 8, completed_story_points: 5 }],
      average_completed_story_points: 5,
    });
    await mcp.close();
  });
});

describe('MCP server: issue tools', () => {
  it('finds an issue by number or by id wherever it is, and filters lists by status and assignee', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project, sprint, prefix } = await projectWithSprint(mcp);
    const at = { project_id: project.id, sprint_id: sprint.id };
    const titles = ['one', 'two', 'three', 'four', 'five'];
    const issues = [];
    for (const [i, title] of titles.entries()) {
      const { issue } = await mcp.ok('create_issue', {
        ...at,
        title,
        status: i % 2 ? 'in_progress' : 'todo',
        assignee_id: i < 2 ? org.member.id : null,
      });
      issues.push(issue);
    }
    const { issue: loose } = await mcp.ok('create_issue', { project_id: project.id, title: 'in the backlog' });

    // The number's pointer, the issue with its project, then its place with its sprint (one round trip).
    const lookup = await mcp.call('get_issue', { issue_number: `${prefix}-3` });
    expect(lookup.dbCalls).toBeLessThanOrEqual(5);
    const byNumber = lookup.result.structuredContent as any;
    expect(byNumber.issue).toEqual(
      (await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}/issues/${issues[2].id}`)).body,
    );
    expect((await mcp.ok('get_issue', { issue_number: loose.issue_number })).issue.id).toBe(loose.id);
    const byId = await mcp.call('get_issue', { project_id: project.id, sprint_id: sprint.id, issue_id: issues[1].id });
    expect(byId.dbCalls).toBeLessThanOrEqual(3);
    expect((byId.result.structuredContent as any).issue.title).toBe('two');
    const bareId = await mcp.call('get_issue', { project_id: project.id, issue_id: loose.id });
    expect(bareId.dbCalls).toBeLessThanOrEqual(3);
    expect((await mcp.call('get_issue', { issue_number: loose.issue_number })).dbCalls).toBeLessThanOrEqual(4);
    expect((bareId.result.structuredContent as any).issue.sprint_id).toBeNull();
    expect((await mcp.ok('get_issue', { project_id: project.id, issue_id: issues[4].id })).issue.title).toBe('five');
    expect(await mcp.error('get_issue', { issue_number: `${prefix}-99` })).toBe(`Issue ${prefix}-99 not found`);
    expect(await mcp.error('get_issue', { issue_number: 'ZZZZ-1' })).toBe('Issue ZZZZ-1 not found');
    // An issue named under a list it is not in: the 404 says where it is (docs/api.md).
    expect(await mcp.error('get_issue', { project_id: project.id, sprint_id: null, issue_id: issues[0].id })).toBe(
      `Issue not found: it is ${issues[0].issue_number}, now in sprint ${sprint.id}: /api/v1/issues/${issues[0].issue_number}`,
    );
    expect(await mcp.error('get_issue', {})).toBe('Validation failed: issue_number, or project_id and issue_id, are required');

    const inProgress = await mcp.call('list_issues', { ...at, status: ['in_progress'] });
    expect(inProgress.dbCalls).toBeLessThanOrEqual(3);
    expect((inProgress.result.structuredContent as any).issues.map((i: { title: string }) => i.title)).toEqual(['two', 'four']);
    const mine = await mcp.ok('list_issues', { ...at, assignee_id: org.member.id, status: ['todo'] });
    expect(mine.issues.map((i: { title: string }) => i.title)).toEqual(['one']);
    const unassigned = await mcp.ok('list_issues', { ...at, assignee_id: null });
    expect(unassigned.issues.map((i: { title: string }) => i.title)).toEqual(['three', 'four', 'five']);

    // A filtered walk in small steps still sees every match exactly once.
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const step: { issues: { title: string }[]; next_cursor: string | null } = await mcp.ok('list_issues', {
        ...at,
        status: ['todo'],
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...step.issues.map((i) => i.title));
      cursor = step.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['one', 'three', 'five']);

    // An issue whose sprint was deleted is gone at once, by number and by id, like its REST paths.
    const { sprint: doomed } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Doomed' });
    const { issue: orphan } = await mcp.ok('create_issue', { project_id: project.id, sprint_id: doomed.id, title: 'orphan' });
    await mcp.ok('delete_sprint', { project_id: project.id, sprint_id: doomed.id });
    // By number, the 404 names the number, as its route by key does (never the sprint it did not name).
    for (const tool of ['get_issue', 'update_issue', 'list_comments', 'get_issue_activity'])
      expect(await mcp.error(tool, { issue_number: orphan.issue_number }), tool).toBe(`Issue ${orphan.issue_number} not found`);
    expect(await mcp.error('get_issue', { project_id: project.id, issue_id: orphan.id })).toMatch(/^(Sprint|Issue) not found$/);
    await mcp.close();
  });

  it('reorders and moves issues, and the REST lists follow', async () => {
    const { mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const { sprint: next } = await mcp.ok('create_sprint', { project_id: project.id, name: 'Next' });
    const at = { project_id: project.id, sprint_id: sprint.id };
    const ids: number[] = [];
    for (const title of ['a', 'b', 'c', 'd']) ids.push((await mcp.ok('create_issue', { ...at, title })).issue.id);
    const sprintList = async (id: number) =>
      (await rest.get(`/api/v1/projects/${project.id}/sprints/${id}/issues`)).body.map((i: { id: number }) => i.id);

    // Within its list: no to_sprint_id.
    const reordered = await mcp.call('move_issue', { ...at, issue_id: ids[3], position: 1 });
    expect(reordered.result.isError).toBeFalsy();
    expect(reordered.dbCalls).toBeLessThanOrEqual(4);
    expect(await sprintList(sprint.id)).toEqual([ids[3], ids[0], ids[1], ids[2]]);
    await mcp.ok('move_issue', { ...at, issue_id: ids[0], position: 99 });
    expect(await sprintList(sprint.id)).toEqual([ids[3], ids[1], ids[2], ids[0]]);

    await mcp.ok('move_issue', { ...at, issue_id: ids[1], to_sprint_id: next.id });
    await mcp.ok('move_issue', { project_id: project.id, issue_id: ids[2], to_sprint_id: next.id, position: 1 });
    expect(await sprintList(sprint.id)).toEqual([ids[3], ids[0]]);
    expect(await sprintList(next.id)).toEqual([ids[2], ids[1]]);
    await mcp.ok('move_issue', { project_id: project.id, sprint_id: next.id, issue_id: ids[1], to_sprint_id: null });
    expect((await rest.get(`/api/v1/projects/${project.id}/issues`)).body.map((i: { id: number }) => i.id)).toEqual([ids[1]]);
    expect(await mcp.error('move_issue', { ...at, issue_id: ids[0] })).toBe(
      'Validation failed: to_sprint_id or position is required: where the issue goes',
    );
    expect(await mcp.error('move_issue', { ...at, issue_id: ids[0], to_sprint_id: 999_999 })).toBe(
      'Validation failed: sprint_id must be a sprint of this project',
    );
    await mcp.close();
  });

  it('updates fields with the REST rules, and deletes as a destructive tool', async () => {
    const { mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const at = { project_id: project.id, sprint_id: sprint.id };
    const { issue } = await mcp.ok('create_issue', { ...at, title: 'Old', story_points: 2 });
    const updated = await mcp.ok('update_issue', {
      issue_number: issue.issue_number,
      title: 'New',
      story_points: null,
      description: '*md*',
    });
    expect(updated.issue).toMatchObject({ title: 'New', story_points: null, description: '*md*', sprint_id: sprint.id });
    expect((await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}/issues/${issue.id}`)).body.title).toBe('New');
    expect(await mcp.error('update_issue', { ...at, issue_id: issue.id, assignee_id: 999_999 })).toBe(
      'Validation failed: assignee_id must be an account of this organisation',
    );
    expect(await mcp.error('update_issue', { ...at, issue_id: issue.id, status: 'finished' })).toBe(
      "Validation failed: status: 'finished' is no state of this project (states: 'backlog', 'todo', 'in_progress', 'done', 'cancelled'; or a category)",
    );

    expect(await mcp.ok('delete_issue', { ...at, issue_id: issue.id })).toEqual({ deleted: true, issue_id: issue.id });
    expect((await rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}/issues/${issue.id}`)).status).toBe(404);
    expect(await mcp.error('delete_issue', { ...at, issue_id: issue.id })).toBe('Issue not found');
    await mcp.close();
  });
});

describe('MCP server: label tools', () => {
  it('manages the label catalogue, sets labels on issues by name or id, and filters lists and my issues by labels', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const made = await mcp.call('create_label', { project_id: project.id, name: 'Bug', color: '#D73A4A' });
    expect(made.dbCalls).toBeLessThanOrEqual(3);
    const bug = (made.result.structuredContent as { label: { id: number } }).label;
    expect(bug).toMatchObject({ name: 'Bug', color: '#d73a4a', description: null });
    const { label: ui } = await mcp.ok('create_label', { project_id: project.id, name: 'ui' });
    expect(await mcp.error('create_label', { project_id: project.id, name: 'BUG' })).toMatch(/name has already been taken/);
    const listed = await mcp.call('list_labels', { project_id: project.id });
    expect(listed.dbCalls).toBeLessThanOrEqual(3);
    expect((listed.result.structuredContent as { labels: { name: string }[] }).labels.map((l) => l.name)).toEqual(['Bug', 'ui']);

    const { issue: both } = await mcp.ok('create_issue', {
      project_id: project.id,
      sprint_id: sprint.id,
      title: 'Both',
      labels: ['bug', ui.id],
      assignee_id: org.admin.id,
    });
    expect(both.labels.map((l: { name: string }) => l.name)).toEqual(['Bug', 'ui']);
    const { issue: plain } = await mcp.ok('create_issue', { project_id: project.id, sprint_id: sprint.id, title: 'Plain' });
    expect(plain.labels).toEqual([]);
    const { issue: tagged } = await mcp.ok('update_issue', { issue_number: plain.issue_number, labels: ['UI'] });
    expect(tagged.labels).toEqual([{ id: ui.id, name: 'ui', color: '#6b7280' }]);
    expect(await mcp.error('update_issue', { issue_number: plain.issue_number, labels: ['nope'] })).toContain(
      "unknown label 'nope'",
    );

    const titles = (r: { issues: { title: string }[] }) => r.issues.map((i) => i.title);
    expect(titles(await mcp.ok('list_issues', { project_id: project.id, sprint_id: sprint.id, labels: ['ui'] }))).toEqual([
      'Both',
      'Plain',
    ]);
    expect(titles(await mcp.ok('list_issues', { project_id: project.id, sprint_id: sprint.id, labels: ['bug', 'UI'] }))).toEqual([
      'Both',
    ]);
    expect(titles(await mcp.ok('list_issues', { project_id: project.id, sprint_id: sprint.id, labels: ['missing'] }))).toEqual(
      [],
    );
    expect(titles(await mcp.ok('my_issues', { labels: ['bug'] }))).toEqual(['Both']);

    // Renamed and deleted through the REST API: the tools show the catalogue's current spelling.
    const labels = `/api/v1/projects/${project.id}/labels`;
    expect((await rest.patch(`${labels}/${bug.id}`, { label: { name: 'defect' } })).status).toBe(200);
    const { issue: seen } = await mcp.ok('get_issue', { issue_number: both.issue_number });
    expect(seen.labels.map((l: { name: string }) => l.name)).toEqual(['defect', 'ui']);
    expect(titles(await mcp.ok('my_issues', { labels: ['Defect'] }))).toEqual(['Both']);
    expect((await rest.delete(`${labels}/${bug.id}`)).status).toBe(204);
    expect((await mcp.ok('get_issue', { issue_number: both.issue_number })).issue.labels).toEqual([
      { id: ui.id, name: 'ui', color: '#6b7280' },
    ]);
  });
});

describe('MCP server: comment tools', () => {
  it('lets only the author edit or delete a comment, on sprint and backlog issues alike', async () => {
    const { org, mcp, rest } = await orgWithMcp();
    const { project, sprint } = await projectWithSprint(mcp);
    const { issue } = await mcp.ok('create_issue', { project_id: project.id, sprint_id: sprint.id, title: 'Talk' });
    const member = await mcpClient(gateway.baseUrl, org.member.token);
    const { comment } = await member.ok('add_comment', { issue_number: issue.issue_number, body: 'From the member' });
    expect(comment.author_id).toBe(org.member.id);

    const restRefusal = await rest.patch(`/api/v1/comments/${comment.id}`, { comment: { body: 'hijack' } });
    expect(restRefusal.status).toBe(403);
    expect(await mcp.error('edit_comment', { comment_id: comment.id, body: 'hijack' })).toBe(restRefusal.body.error);
    expect(await mcp.error('delete_comment', { comment_id: comment.id })).toBe('Only the author of a comment may delete it');
    expect(await member.error('add_comment', { issue_number: issue.issue_number, body: '   ' })).toContain("can't be blank");

    // Backlog issues take comments too, and the REST API lists them under the backlog path.
    const { issue: loose } = await mcp.ok('create_issue', { project_id: project.id, title: 'Backlog' });
    const { comment: onBacklog } = await mcp.ok('add_comment', { issue_number: loose.issue_number, body: 'later' });
    expect((await rest.get(`/api/v1/projects/${project.id}/issues/${loose.id}/comments`)).body).toEqual([onBacklog]);
    expect((await mcp.ok('list_comments', { project_id: project.id, sprint_id: null, issue_id: loose.id })).comments).toEqual([
      onBacklog,
    ]);

    expect(await member.ok('delete_comment', { comment_id: comment.id })).toEqual({ deleted: true, comment_id: comment.id });
    expect((await rest.get(`/api/v1/comments/${comment.id}`)).status).toBe(404);
    expect((await mcp.ok('list_comments', { issue_number: issue.issue_number })).comments).toEqual([]);
    await member.close();
    await mcp.close();
  });
});

describe('MCP server: organisations are isolated', () => {
  it("cannot reach another organisation's sprints, issues or comments, by id or by number", async () => {
    const a = await orgWithMcp();
    const b = await orgWithMcp();
    const { project, sprint, prefix } = await projectWithSprint(a.mcp);
    const at = { project_id: project.id, sprint_id: sprint.id };
    const { issue } = await a.mcp.ok('create_issue', { ...at, title: 'Secret' });
    const { comment } = await a.mcp.ok('add_comment', { ...at, issue_id: issue.id, body: 'secret' });
    const notFound = /^(Project|Sprint|Issue|Comment) not found$/;
    for (const [tool, args] of [
      ['get_sprint', at],
      ['list_sprints', { project_id: project.id }],
      ['list_issues', at],
      ['get_issue', { ...at, issue_id: issue.id }],
      ['get_issue', { project_id: project.id, issue_id: issue.id }],
      ['update_issue', { ...at, issue_id: issue.id, title: 'pwned' }],
      ['create_issue', { ...at, title: 'intruder' }],
      ['activate_sprint', at],
      ['get_sprint_summary', at],
      ['list_comments', { ...at, issue_id: issue.id }],
      ['add_comment', { ...at, issue_id: issue.id, body: 'intruder' }],
      ['edit_comment', { comment_id: comment.id, body: 'pwned' }],
      ['delete_comment', { comment_id: comment.id }],
      ['delete_sprint', at],
    ] as const) {
      expect(await b.mcp.error(tool, args), tool).toMatch(notFound);
    }
    // Org B has a project with the same id and prefix: ids and numbers resolve in the caller's organisation only.
    const { project: own } = await b.mcp.ok('create_project', { name: 'Mine', prefix });
    expect(own.id).toBe(project.id);
    expect(await b.mcp.error('get_issue', { issue_number: issue.issue_number })).toBe(`Issue ${issue.issue_number} not found`);
    expect(await b.mcp.error('update_issue', { issue_number: issue.issue_number, title: 'pwned' })).toBe(
      `Issue ${issue.issue_number} not found`,
    );
    expect(await b.mcp.error('get_sprint', at)).toBe('Sprint not found');
    expect((await b.mcp.ok('list_sprints', { project_id: project.id })).sprints).toEqual([]);

    expect((await a.rest.get(`/api/v1/projects/${project.id}/sprints/${sprint.id}/issues/${issue.id}`)).body.title).toBe(
      'Secret',
    );
    expect((await a.rest.get(`/api/v1/comments/${comment.id}`)).body.body).toBe('secret');
    await a.mcp.close();
    await b.mcp.close();
  });
});

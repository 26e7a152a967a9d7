import { describe, expect, it } from 'vitest';
import { keys, projectPk } from '../../lib/db/core/keys.ts';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { itemsIn, waitUntilEmpty } from '../support/cascade.ts';
import { mcpClient } from '../support/mcp.ts';

/**
 * The activity history is written by the change feed consumer from the table's stream (fed by the
 * stream poller of the test run, as DynamoDB Streams feeds it in AWS): so it appears shortly after
 * a write, and these tests wait for it.
 */

const gateway = useGateway();

async function setup() {
  const clients = await orgWithClients(gateway);
  const project = (await clients.admin.post('/api/v1/projects', { project: { name: 'Atlas', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  const sprint = (await clients.admin.post(`${projectPath}/sprints`, { sprint: { name: 'One' } })).body;
  return { ...clients, project, projectPath, sprint, sprintPath: `${projectPath}/sprints/${sprint.id}` };
}

describe('issue activity', () => {
  it('records the creation and each changed field with its actor, from and to, oldest first', async () => {
    const { org, admin, member, projectPath, sprintPath } = await setup();
    const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Draft', story_points: 3 } })).body;
    const path = `${sprintPath}/issues/${issue.id}`;
    expect((await member.patch(path, { issue: { title: 'Final', status: 'in_progress', story_points: 5 } })).status).toBe(200);
    expect((await admin.patch(path, { issue: { description: 'Now with details', assignee_id: org.member.id } })).status).toBe(
      200,
    );
    expect((await member.patch(path, { issue: { sprint_id: null } })).status).toBe(200);
    const backlogPath = `${projectPath}/issues/${issue.id}`;

    const entries = await activityOf(member, backlogPath, 4);
    expect(entries.map((e) => [e.event, e.actor_id])).toEqual([
      ['issue.created', org.admin.id],
      ['issue.updated', org.member.id],
      ['issue.updated', org.admin.id],
      ['issue.updated', org.member.id],
    ]);
    expect(entries[1].changes).toEqual([
      { field: 'title', from: 'Draft', to: 'Final' },
      { field: 'status', from: 'todo', to: 'in_progress' },
      { field: 'state_id', from: 2, to: 3 },
      { field: 'status_category', from: 'todo', to: 'in_progress' },
      { field: 'story_points', from: 3, to: 5 },
    ]);
    // A description is reported as changed, not repeated.
    expect(entries[2].changes).toEqual([{ field: 'assignee_id', from: null, to: org.member.id }, { field: 'description' }]);
    const sprintId = Number(sprintPath.split('/').at(-1));
    expect(entries[3].changes).toContainEqual({ field: 'sprint_id', from: sprintId, to: null });
    expect(entries[3].sprint_id).toBeNull();
    for (const e of entries) expect(Date.parse(e.at)).not.toBeNaN();
    expect((await member.get(`${backlogPath}/activity`)).headers.get('x-total-count')).toBe('4');
    // Under the sprint's path the issue is not there any more.
    expect((await member.get(`${path}/activity`)).status).toBe(404);
  });

  it('records a reorder as a move without a place, and comments added, edited and deleted, each with its actor and sprint', async () => {
    const { org, admin, member, sprint, sprintPath } = await setup();
    const first = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'First' } })).body;
    await admin.post(`${sprintPath}/issues`, { issue: { title: 'Second' } });
    const path = `${sprintPath}/issues/${first.id}`;
    expect((await admin.patch(path, { issue: { position: 2 } })).status).toBe(200);
    const comment = (await member.post(`${path}/comments`, { comment: { body: 'Looks good' } })).body;
    expect((await member.patch(`/api/v1/comments/${comment.id}`, { comment: { body: 'Looks great' } })).status).toBe(200);
    expect((await member.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);

    const entries = await activityOf(admin, path, 5);
    expect(entries.map((e) => e.event)).toEqual([
      'issue.created',
      'issue.updated',
      'comment.created',
      'comment.updated',
      'comment.deleted',
    ]);
    expect(entries[1].changes).toEqual([{ field: 'position' }]);
    expect(entries[1].actor_id).toBe(org.admin.id);
    expect(entries.slice(2).map((e) => e.comment_id)).toEqual([comment.id, comment.id, comment.id]);
    expect(entries[2].actor_id).toBe(org.member.id);
    expect(entries[3]).toMatchObject({ actor_id: org.member.id, changes: [{ field: 'body' }] });
    // The delete's marker names who deleted the comment (the delete leaves no image to stamp).
    expect(entries[4].actor_id).toBe(org.member.id);
    expect(Date.parse(entries[4].at)).not.toBeNaN();
    // Every entry of an issue in a sprint names the sprint, the comments' too.
    expect(entries.map((e) => e.sprint_id)).toEqual([sprint.id, sprint.id, sprint.id, sprint.id, sprint.id]);
  });

  it("names the issue's sprint of the moment on each comment entry, after the issue moved", async () => {
    const { org, admin, projectPath, sprint, sprintPath } = await setup();
    const other = (await admin.post(`${projectPath}/sprints`, { sprint: { name: 'Two' } })).body;
    const issue = (await admin.post(`${projectPath}/issues`, { issue: { title: 'Wandering' } })).body;
    const comment = (await admin.post(`${projectPath}/issues/${issue.id}/comments`, { comment: { body: 'In the backlog' } }))
      .body;
    expect((await admin.patch(`${projectPath}/issues/${issue.id}`, { issue: { sprint_id: sprint.id } })).status).toBe(200);
    expect((await admin.patch(`/api/v1/comments/${comment.id}`, { comment: { body: 'In sprint one' } })).status).toBe(200);
    const otherPath = `${projectPath}/sprints/${other.id}/issues/${issue.id}`;
    expect((await admin.patch(`${sprintPath}/issues/${issue.id}`, { issue: { sprint_id: other.id } })).status).toBe(200);
    // Deleted without an edit since the move: the comment itself still says sprint one.
    expect((await admin.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);

    const entries = await activityOf(admin, otherPath, 6);
    expect(entries.map((e) => [e.event, e.sprint_id, e.actor_id])).toEqual([
      ['issue.created', null, org.admin.id],
      ['comment.created', null, org.admin.id],
      ['issue.updated', sprint.id, org.admin.id],
      ['comment.updated', sprint.id, org.admin.id],
      ['issue.updated', other.id, org.admin.id],
      ['comment.deleted', other.id, org.admin.id],
    ]);
  });

  it("records a sprint's activation and completion on the sprint's own activity", async () => {
    const { org, admin, member, sprintPath } = await setup();
    expect((await member.post(`${sprintPath}/activate`)).status).toBe(200);
    expect((await admin.post(`${sprintPath}/complete`)).status).toBe(200);
    const entries = await activityOf(admin, sprintPath, 2);
    expect(entries.map((e) => [e.event, e.actor_id, e.changes])).toEqual([
      ['sprint.activated', org.member.id, [{ field: 'status', from: 'planning', to: 'active' }]],
      ['sprint.completed', org.admin.id, [{ field: 'status', from: 'active', to: 'completed' }]],
    ]);
  });

  it("another organisation sees none of it: the issue's and the sprint's activity are 404", async () => {
    const { admin, sprintPath } = await setup();
    const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Secret' } })).body;
    const path = `${sprintPath}/issues/${issue.id}`;
    await activityOf(admin, path, 1);
    const other = await orgWithClients(gateway);
    expect((await other.admin.get(`${path}/activity`)).status).toBe(404);
    expect((await other.admin.get(`${sprintPath}/activity`)).status).toBe(404);
  });

  it("purging a deleted issue removes its activity with its comments (the issue's cascade)", async () => {
    const { org, admin, project, sprintPath } = await setup();
    const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Doomed' } })).body;
    const path = `${sprintPath}/issues/${issue.id}`;
    await admin.post(`${path}/comments`, { comment: { body: 'bye' } });
    await activityOf(admin, path, 2);
    expect((await admin.delete(path)).status).toBe(204);
    const range = { pk: projectPk(org.orgId, project.id), skPrefix: `${keys.issue(org.orgId, project.id, issue.id).SK}#` };
    // Kept while the issue is in the trash (docs/trash.md); its purge runs the cascade.
    expect((await itemsIn(range)).length).toBeGreaterThan(0);
    expect((await admin.delete(`/api/v1/trash/issue-${issue.id}`)).status).toBe(204);
    await waitUntilEmpty(range);
    expect(await itemsIn(range)).toEqual([]);
  });

  it('is what the MCP tool get_issue_activity returns, by issue number', async () => {
    const { org, admin, sprintPath } = await setup();
    const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Tooling' } })).body;
    const path = `${sprintPath}/issues/${issue.id}`;
    await admin.patch(path, { issue: { status: 'done' } });
    const rest = await activityOf(admin, path, 2);
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const out = await mcp.ok('get_issue_activity', { issue_number: issue.issue_number });
    expect(out.activity).toEqual(rest);
    expect(out.total).toBe(2);
  });
});

describe('activity pages', () => {
  it('follow their next links to the end, an imported history first (its entries are no stream records)', async () => {
    const { admin, projectPath, org } = await setup();
    const { importIssues } = await import('../../lib/services/import-export/import.ts');
    const project = (await admin.get(projectPath)).body;
    const csv = 'Summary,Issue key,Status\r\nFrom Jira,DI-1,To Do\r\n';
    const report = await importIssues({ orgId: org.orgId, projectId: project.id, format: 'jira-csv' }, [csv]);
    const issue = (await admin.get(`/api/v1/issues/${report.keys['DI-1']}`)).body;
    const path = `${projectPath}/issues/${issue.id}`;
    for (const title of ['One', 'Two', 'Three']) expect((await admin.patch(path, { issue: { title } })).status).toBe(200);
    await activityOf(admin, path, 4);
    const events: string[] = [];
    let at: string | undefined = `${path}/activity?per_page=1`;
    for (let pages = 0; at; pages++) {
      expect(pages).toBeLessThan(10);
      const res: { status: number; body: any[]; headers: Headers } = await admin.get(at);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      events.push(...res.body.map((e) => e.event));
      const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      at = next ? new URL(next, 'http://x').pathname + new URL(next, 'http://x').search : undefined;
    }
    expect(events).toEqual(['issue.imported', 'issue.updated', 'issue.updated', 'issue.updated']);
  });
});

import { describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { mcpClient } from '../support/mcp.ts';

/**
 * The undo tools as an agent calls them through the MCP SDK's client (docs/mcp.md): `list_trash`
 * and `restore` under the trash's rule (admins all of it, members what they deleted), and
 * `revert_change` with the revert's 409 and `expected_version` (its `If-Match`).
 */

const gateway = useGateway();

async function setup() {
  const clients = await orgWithClients(gateway);
  const { admin } = clients;
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Undo', prefix: randomPrefix() } })).body;
  const p = `/api/v1/projects/${project.id}`;
  const adminMcp = await mcpClient(gateway.baseUrl, clients.org.admin.token);
  const memberMcp = await mcpClient(gateway.baseUrl, clients.org.member.token);
  return { ...clients, project, p, adminMcp, memberMcp };
}

describe('MCP: list_trash and restore', () => {
  it("lists a member's own deletions and an admin's whole trash, and restores as the REST route does", async () => {
    const { admin, member, org, p, adminMcp, memberMcp } = await setup();
    const mine = (await member.post(`${p}/labels`, { label: { name: 'mine', color: '#123456' } })).body;
    const theirs = (await admin.post(`${p}/labels`, { label: { name: 'theirs' } })).body;
    expect((await member.delete(`${p}/labels/${mine.id}`)).status).toBe(204);
    expect((await admin.delete(`${p}/labels/${theirs.id}`)).status).toBe(204);

    const seen = await memberMcp.ok('list_trash');
    expect(seen.trash.map((t: { id: string }) => t.id)).toEqual([`label-${mine.id}`]);
    expect(seen.trash[0]).toMatchObject({ kind: 'label', item_id: mine.id, title: 'mine', deleted_by: org.member.id });
    expect(seen.next_cursor).toBeNull();
    // The admin sees both, newest first, a page at a time.
    const first = await adminMcp.ok('list_trash', { limit: 1 });
    expect(first.trash.map((t: { id: string }) => t.id)).toEqual([`label-${theirs.id}`]);
    const second = await adminMcp.ok('list_trash', { limit: 1, cursor: first.next_cursor });
    expect(second.trash.map((t: { id: string }) => t.id)).toEqual([`label-${mine.id}`]);
    expect(await adminMcp.error('list_trash', { cursor: 'forged' })).toMatch(/cursor/);

    // Someone else's item is not the member's to see, nor to restore.
    const rest404 = await member.post(`/api/v1/trash/label-${theirs.id}/restore`);
    expect(rest404.status).toBe(404);
    expect(await memberMcp.error('restore', { id: `label-${theirs.id}` })).toBe(rest404.body.error);

    const back = await memberMcp.ok('restore', { id: `label-${mine.id}` });
    expect(back.restored).toEqual({ kind: 'label', item: mine });
    expect((await admin.get(`${p}/labels/${mine.id}`)).body).toEqual(mine);
    expect(await memberMcp.error('restore', { id: `label-${mine.id}` })).toBe(rest404.body.error);

    // A label of the same name made meanwhile: the REST route's 422 message, and nothing restored.
    await admin.post(`${p}/labels`, { label: { name: 'THEIRS' } });
    const refused = await admin.post(`/api/v1/trash/label-${theirs.id}/restore`);
    expect(refused.status).toBe(422);
    expect(await adminMcp.error('restore', { id: `label-${theirs.id}` })).toBe(refused.body.error);
    expect((await admin.get(`${p}/labels/${theirs.id}`)).status).toBe(404);
    // Purging stays with the REST API (admins): the tools only bring back.
    expect((await adminMcp.ok('list_trash')).trash.map((t: { id: string }) => t.id)).toEqual([`label-${theirs.id}`]);
  });
});

describe('MCP: a comment through the trash', () => {
  it('delete_comment moves it into the trash; list_trash shows it; restore brings it back as it was', async () => {
    const { member, p, memberMcp } = await setup();
    const issue = (await member.post(`${p}/issues`, { issue: { title: 'Talked about' } })).body;
    const issueRef = { issue_number: issue.issue_number };
    const { comment } = await memberMcp.ok('add_comment', { ...issueRef, body: 'Said once' });
    const before = await memberMcp.ok('list_comments', issueRef);

    await memberMcp.ok('delete_comment', { comment_id: comment.id });
    expect((await memberMcp.ok('list_comments', issueRef)).comments).toEqual([]);
    expect(await memberMcp.error('edit_comment', { comment_id: comment.id, body: 'x' })).toMatch(/Comment not found/);
    const trash = (await memberMcp.ok('list_trash')).trash;
    expect(trash).toEqual([expect.objectContaining({ id: `comment-${comment.id}`, kind: 'comment', title: 'Said once' })]);

    const back = await memberMcp.ok('restore', { id: `comment-${comment.id}` });
    expect(back.restored).toEqual({ kind: 'comment', item: before.comments[0] });
    expect(await memberMcp.ok('list_comments', issueRef)).toEqual(before);
  });
});

describe('MCP: revert_change', () => {
  it('undoes an activity entry, only at expected_version when given, and names what changed since', async () => {
    const { admin, p, adminMcp, memberMcp } = await setup();
    const issue = (await admin.post(`${p}/issues`, { issue: { title: 'One', story_points: 1 } })).body;
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { title: 'Two', story_points: 2 } });
    await activityOf(admin, path, 2);
    const { activity } = await adminMcp.ok('get_issue_activity', { issue_number: issue.issue_number });
    const change = activity[1];
    expect(change.event).toBe('issue.updated');

    // Moved on since: the 409's message, with the values now; nothing written.
    await admin.patch(path, { issue: { title: 'Three' } });
    const refused = await memberMcp.error('revert_change', { activity_id: change.id });
    expect(refused).toBe('Changed since this entry: title; nothing was reverted. Now: title is "Three"');
    expect((await admin.get(path)).body).toMatchObject({ title: 'Three', story_points: 2 });

    // Back at the entry's values: it applies, only at the version the agent expects.
    await admin.patch(path, { issue: { title: 'Two' } });
    const { version } = await adminMcp.ok('get_issue', { issue_number: issue.issue_number });
    const stale = await adminMcp.call('revert_change', { activity_id: change.id, expected_version: version - 1 });
    expect(stale.result.isError).toBe(true);
    expect(stale.text).toMatch(/changed/);
    expect((await admin.get(path)).body.title).toBe('Two');
    const reverted = await adminMcp.ok('revert_change', { activity_id: change.id, expected_version: version });
    expect(reverted.issue).toMatchObject({ title: 'One', story_points: 1 });
    expect(reverted.version).toBe(version + 1);
    expect((await admin.get(path)).body).toMatchObject({ title: 'One', story_points: 1 });
    expect(await adminMcp.error('revert_change', { activity_id: 'nope' })).toMatch(/not found/i);
  });
});

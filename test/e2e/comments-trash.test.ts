import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { expectHiddenFromOthers, expectTrashedBy, pastRetention, purgeOnceHeld } from '../support/trash.ts';
import { eventually, bounds } from '../support/eventually.ts';
import { mcpClient } from '../support/mcp.ts';
import { useReceivers, waitFor } from '../support/receiver.ts';

/**
 * Comments in the trash end to end (docs/trash.md): a comment's delete takes it out of every read at
 * once (its issue's list and count, `comments_count`, its own GET, MCP) and into the trash whole, in
 * the delete's one transaction; its restore brings back every read exactly as it was; a restore
 * whose issue is gone is refused; a purge, or its expiry, leaves nothing of it.
 */

const gateway = useGateway();
const receivers = useReceivers();

/** A project with a sprint, an issue in it with comments by the admin and the member, and a backlog issue with one. */
async function commentedProject(admin: ApiClient, member: ApiClient) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Comments', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'One' } }));
  const issue = await ok(admin.post(`${p}/sprints/${sprint.id}/issues`, { issue: { title: 'Commented' } }));
  const issuePath = `${p}/sprints/${sprint.id}/issues/${issue.id}`;
  const first = await ok(admin.post(`${issuePath}/comments`, { comment: { body: 'First' } }));
  const mine = await ok(member.post(`${issuePath}/comments`, { comment: { body: 'Draft' } }));
  // Edited: a version and an `updated_at` of its own, which the restore must bring back.
  const edited = await ok(member.patch(`/api/v1/comments/${mine.id}`, { comment: { body: 'Mine, edited\nsecond line' } }));
  const last = await ok(admin.post(`${issuePath}/comments`, { comment: { body: 'Last' } }));
  const backlog = await ok(admin.post(`${p}/issues`, { issue: { title: 'Backlog' } }));
  const backlogComment = await ok(member.post(`${p}/issues/${backlog.id}/comments`, { comment: { body: 'In the backlog' } }));
  return { project, p, sprint, issue, issuePath, first, mine: edited, last, backlog, backlogComment };
}

type Project = Awaited<ReturnType<typeof commentedProject>>;

/** Every read that shows a comment, with its body, count and ETag where it has them. */
async function snapshot(client: ApiClient, f: Project, mcp: Awaited<ReturnType<typeof mcpClient>>) {
  const read = async (path: string) => {
    const res = await client.get(path);
    return { status: res.status, body: res.body, total: res.headers.get('x-total-count'), etag: res.headers.get('etag') };
  };
  return {
    issue: await read(`/api/v1/issues/${f.issue.issue_number}`),
    issueInList: await read(f.issuePath),
    comments: await read(`${f.issuePath}/comments`),
    secondPage: await read(`${f.issuePath}/comments?per_page=1&page=2`),
    comment: await read(`/api/v1/comments/${f.mine.id}`),
    others: await Promise.all([f.first, f.last, f.backlogComment].map((c) => read(`/api/v1/comments/${c.id}`))),
    backlog: await read(`${f.p}/issues/${f.backlog.id}/comments`),
    mcp: await mcp.ok('list_comments', { issue_number: f.issue.issue_number }),
  };
}

const itemAt = async (key: { PK: string; SK: string }) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const commentKey = (orgId: number, f: Project, commentId: number) => keys.comment(orgId, f.project.id, f.issue.id, commentId);
const trashKey = (orgId: number, commentId: number) => keys.trash(orgId, keys.commentPointer(orgId, commentId).SK);

/** Whatever is left of comment `commentId`: the comment, its pointer, its trash item. */
const leftOf = async (orgId: number, f: Project, commentId: number) =>
  (
    await Promise.all([
      itemAt(commentKey(orgId, f, commentId)),
      itemAt(keys.commentPointer(orgId, commentId)),
      itemAt(trashKey(orgId, commentId)),
    ])
  ).filter((i) => i !== undefined);

describe('comments in the trash', () => {
  it('a delete takes a comment out of every read, and its restore makes every read as it was', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const f = await commentedProject(admin, member);
    const before = await snapshot(admin, f, mcp);
    expect(before.comments.total).toBe('3');
    const stored = await itemAt(commentKey(org.orgId, f, f.mine.id));
    expect(stored?.version).toBe(2);

    // The member deletes their own comment, on its pointer alone: the same 3 calls as before the trash.
    const deleted = await member.delete(`/api/v1/comments/${f.mine.id}`);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    const gone = await snapshot(admin, f, mcp);
    expect(gone.comment.status).toBe(404);
    // The issue shows no count: its comment list's X-Total-Count is its `comments_count`.
    expect(gone.issue.body).toEqual(before.issue.body);
    expect(gone.comments.total).toBe('2');
    expect(gone.comments.body.map((c: { id: number }) => c.id)).toEqual([f.first.id, f.last.id]);
    expect(gone.secondPage.body.map((c: { id: number }) => c.id)).toEqual([f.last.id]);
    expect(gone.mcp.comments.map((c: { id: number }) => c.id)).toEqual([f.first.id, f.last.id]);
    expect(gone.others).toEqual(before.others);
    expect(gone.backlog).toEqual(before.backlog);
    expect(await mcp.error('edit_comment', { comment_id: f.mine.id, body: 'x' })).toMatch(/Comment not found/);
    // No write reaches it any more.
    expect((await member.patch(`/api/v1/comments/${f.mine.id}`, { comment: { body: 'x' } })).status).toBe(404);
    expect((await member.delete(`/api/v1/comments/${f.mine.id}`)).status).toBe(404);

    // In the trash, whole: exactly the comment as it was stored (made from its pointer alone).
    const trashed = await itemAt(trashKey(org.orgId, f.mine.id));
    expect(trashed?.stored).toEqual(stored);
    const entry = {
      id: `comment-${f.mine.id}`,
      kind: 'comment',
      item_id: f.mine.id,
      title: 'Mine, edited…',
      deleted_by: org.member.id,
    };
    await expectTrashedBy(member, admin, entry, 'label');

    const restored = await member.post(`/api/v1/trash/comment-${f.mine.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ kind: 'comment', item: before.comment.body });
    expect(restored.dbCalls).toBeLessThanOrEqual(3);
    // Every read as it was; the issue's ETag alone has moved on, as its comment count was written
    // twice (a comment's create and delete move it too).
    const after = await snapshot(admin, f, mcp);
    expect(after.issue.etag).not.toBe(before.issue.etag);
    const unversioned = (s: typeof before) => ({
      ...s,
      issue: { ...s.issue, etag: null },
      issueInList: { ...s.issueInList, etag: null },
    });
    expect(unversioned(after)).toEqual(unversioned(before));
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await member.post(`/api/v1/trash/comment-${f.mine.id}/restore`)).status).toBe(404);

    // Back whole: its pointer carries it again, so the next delete is on the pointer alone too.
    const again = await member.delete(`/api/v1/comments/${f.mine.id}`, { headers: { 'If-Match': before.comment.etag! } });
    expect([again.status, again.dbCalls]).toEqual([204, 3]);
    const { restored_at: _mark, updated_by: _restorer, ...second } = (await itemAt(trashKey(org.orgId, f.mine.id)))!.stored;
    const { updated_by: _writer, ...first } = stored!;
    expect(second).toEqual(first);
    await mcp.close();
  });

  it("shows a member only their own deletions; another organisation's comment is 404", async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await commentedProject(admin, member);
    expect((await admin.delete(`/api/v1/comments/${f.first.id}`)).status).toBe(204);
    const path = `/api/v1/trash/comment-${f.first.id}`;
    await expectHiddenFromOthers(member, gateway, path);
    expect((await admin.get(`/api/v1/comments/${f.first.id}`)).status).toBe(404);
    expect((await admin.post(`${path}/restore`)).status).toBe(200);
  });

  it('moves a comment whose pointer carries no copy into the trash whole after reading it', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await commentedProject(admin, member);
    // A pointer written before pointers carried the body.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.commentPointer(org.orgId, f.last.id),
        UpdateExpression: 'REMOVE body',
      }),
    );
    const stored = await itemAt(commentKey(org.orgId, f, f.last.id));
    const deleted = await admin.delete(`/api/v1/comments/${f.last.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.dbCalls).toBeLessThanOrEqual(5);
    expect((await itemAt(trashKey(org.orgId, f.last.id)))?.stored).toEqual(stored);
    const count = async () => (await admin.get(`${f.issuePath}/comments`)).headers.get('x-total-count');
    expect(await count()).toBe('2');
    expect((await admin.post(`/api/v1/trash/comment-${f.last.id}/restore`)).status).toBe(200);
    expect((await admin.get(`/api/v1/comments/${f.last.id}`)).body).toEqual({ ...f.last });
    expect(await count()).toBe('3');
    // Restored, its pointer carries the whole comment again.
    expect((await itemAt(keys.commentPointer(org.orgId, f.last.id)))?.body).toBe('Last');
  });

  it('restores into the sprint its issue moved to; refuses with 422 when its issue or project is gone', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await commentedProject(admin, member);
    expect((await admin.delete(`/api/v1/comments/${f.first.id}`)).status).toBe(204);
    expect((await member.delete(`/api/v1/comments/${f.backlogComment.id}`)).status).toBe(204);

    // The issue moved to another sprint meanwhile: the comment follows it.
    const next = await ok(admin.post(`${f.p}/sprints`, { sprint: { name: 'Two' } }));
    await ok(admin.patch(f.issuePath, { issue: { sprint_id: next.id } }));
    expect((await admin.post(`/api/v1/trash/comment-${f.first.id}/restore`)).status).toBe(200);
    const moved = await admin.get(`${f.p}/sprints/${next.id}/issues/${f.issue.id}/comments`);
    expect(moved.body.map((c: { id: number }) => c.id)).toEqual([f.first.id, f.mine.id, f.last.id]);
    expect(moved.headers.get('x-total-count')).toBe('3');
    expect((await admin.get(`/api/v1/comments/${f.first.id}`)).body).toEqual(f.first);

    // Its issue deleted: refused, and nothing comes back.
    expect((await admin.delete(`${f.p}/issues/${f.backlog.id}`)).status).toBe(204);
    const refused = await member.post(`/api/v1/trash/comment-${f.backlogComment.id}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      error: `Comment ${f.backlogComment.id} cannot come back: its issue ${f.backlog.id} no longer exists (restore the issue first)`,
    });
    expect((await admin.get(`/api/v1/comments/${f.backlogComment.id}`)).status).toBe(404);
    expect((await member.get(`/api/v1/trash/comment-${f.backlogComment.id}`)).status).toBe(200);

    // Its project deleted: refused, naming the project (in the trash, then purged).
    expect((await admin.delete(`/api/v1/comments/${f.last.id}`)).status).toBe(204);
    expect((await admin.delete(f.p)).status).toBe(204);
    const trashed = await admin.post(`/api/v1/trash/comment-${f.last.id}/restore`);
    expect(trashed.status).toBe(422);
    expect(trashed.body.error).toBe(
      `Comment ${f.last.id} cannot come back: its project ${f.project.id} is in the trash (restore the project first)`,
    );
    await purgeOnceHeld(admin, `project-${f.project.id}`);
    const orphan = await admin.post(`/api/v1/trash/comment-${f.last.id}/restore`);
    expect(orphan.status).toBe(422);
    expect(orphan.body.error).toBe(`Comment ${f.last.id} cannot come back: its project ${f.project.id} no longer exists`);
  });

  it('a purge leaves nothing of it; neither does its expiry', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await commentedProject(admin, member);
    expect((await member.delete(`/api/v1/comments/${f.mine.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/comments/${f.first.id}`)).status).toBe(204);
    expect(await leftOf(org.orgId, f, f.mine.id)).toHaveLength(1);

    expect((await admin.delete(`/api/v1/trash/comment-${f.mine.id}`)).status).toBe(204);
    expect(await leftOf(org.orgId, f, f.mine.id)).toEqual([]);
    expect((await member.post(`/api/v1/trash/comment-${f.mine.id}/restore`)).status).toBe(404);

    // Past its retention: treated as purged at once; the TTL's delete then leaves nothing.
    await pastRetention(trashKey(org.orgId, f.first.id));
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/comment-${f.first.id}/restore`)).status).toBe(404);
    await db.send(new DeleteCommand({ TableName: tableName(), Key: trashKey(org.orgId, f.first.id) }));
    expect(await leftOf(org.orgId, f, f.first.id)).toEqual([]);

    // The issue holds only the comment never deleted; the counts agree.
    const under = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :c)',
        ExpressionAttributeValues: { ':pk': commentKey(org.orgId, f, f.last.id).PK, ':c': 'ISSUE#' },
        ConsistentRead: true,
      }),
    );
    const comments = (under.Items ?? []).filter((i) => i.type === 'comment');
    expect(comments.map((c) => c.id).sort()).toEqual([f.last.id, f.backlogComment.id].sort());
    expect((await admin.get(`${f.issuePath}/comments`)).headers.get('x-total-count')).toBe('1');
    const issue = await itemAt(keys.issue(org.orgId, f.project.id, f.issue.id));
    expect(issue?.comments_count).toBe(1);
  });

  it('tells subscribed endpoints and the issue history of each restore and purge: comment.restored and comment.purged', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const r = await receivers.start();
    const events = ['comment.created', 'comment.deleted', 'comment.restored', 'comment.purged'];
    const hook = await ok(admin.post('/api/v1/webhooks', { webhook: { url: r.url, events } }));
    r.secret = hook.secret;
    const f = await commentedProject(admin, member);
    const { restored_at: _mark, ...mine } = f.mine as typeof f.mine & { restored_at?: string };

    expect((await member.delete(`/api/v1/comments/${f.mine.id}`)).status).toBe(204);
    expect((await member.post(`/api/v1/trash/comment-${f.mine.id}/restore`)).status).toBe(200);
    expect((await admin.delete(`/api/v1/comments/${f.last.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/comment-${f.last.id}`)).status).toBe(204);

    // Four creates, two deletes, a restore and a purge, in whatever order their deliveries land.
    await waitFor(() => r.accepted().length >= 8, 90_000, 'eight comment events');
    const got = r.accepted().map((d) => d.body);
    const of = (type: string) => got.filter((b) => b.type === type).map((b) => b.data);
    expect(of('comment.restored')).toEqual([
      expect.objectContaining({
        organisation_id: org.orgId,
        project_id: f.project.id,
        actor_id: org.member.id,
        comment: mine,
        changes: [],
      }),
    ]);
    expect(of('comment.purged')).toEqual([expect.objectContaining({ actor_id: org.admin.id, comment: f.last })]);
    // The restore's write of the comment is no new comment.
    const idsOf = (type: string) =>
      of(type)
        .map((d) => d.comment.id as number)
        .sort((a, b) => a - b);
    expect(idsOf('comment.created')).toEqual([f.first.id, f.mine.id, f.last.id, f.backlogComment.id].sort((a, b) => a - b));
    expect(idsOf('comment.deleted')).toEqual([f.mine.id, f.last.id].sort((a, b) => a - b));

    const activity = await eventually(
      'the restore and the purge in the issue history',
      async () => (await admin.get(`${f.issuePath}/activity?per_page=100`)).body as { event: string; comment_id: number }[],
      (entries) => entries.some((e) => e.event === 'comment.purged'),
      bounds.changeFeed,
    );
    const trashEntries = activity.filter((e) => e.event === 'comment.restored' || e.event === 'comment.purged');
    expect(trashEntries.map((e) => [e.event, e.comment_id]).sort()).toEqual(
      [
        ['comment.purged', f.last.id],
        ['comment.restored', f.mine.id],
      ].sort(),
    );
  }, 120_000);
});

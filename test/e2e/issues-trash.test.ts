import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import {
  deleteReviewInto,
  expectHiddenFromOthers,
  expectTrashedBy,
  pastRetention,
  projectWithReview,
  purgeOnceHeld,
} from '../support/trash.ts';
import { bounds, eventually } from '../support/eventually.ts';
import { useReceivers, waitFor } from '../support/receiver.ts';
import { mcpClient } from '../support/mcp.ts';
import { budgetOf } from '../support/call-budgets.ts';
import { routes } from '../../lib/routes.ts';

/**
 * Issues in the trash end to end (docs/trash.md): an issue's delete takes it out of every read at
 * once (its GET by id and by key, its list and X-Total-Count, its sprint's counters, report,
 * burndown and board, search, my issues, the project's counters) and into the trash whole, in the
 * delete's one transaction; its restore brings back every read exactly as it was, with the same id
 * and number; a purge, or its expiry, leaves nothing of it.
 */

const gateway = useGateway();
const receivers = useReceivers();

/**
 * A project with a label, an active sprint holding three issues (the middle one, `target`, in
 * progress, with points, the label and the member as assignee) and a backlog issue.
 */
async function issueProject(admin: ApiClient, memberId: number) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Trash', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  await ok(admin.post(`${p}/labels`, { label: { name: 'bug' } }));
  const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'One' } }));
  const s = `${p}/sprints/${sprint.id}`;
  const first = await ok(admin.post(`${s}/issues`, { issue: { title: 'First', story_points: 2 } }));
  const target = await ok(
    admin.post(`${s}/issues`, {
      issue: { title: 'Login fails on Safari', story_points: 3, labels: ['bug'], assignee_id: memberId, priority: 'high' },
    }),
  );
  const last = await ok(admin.post(`${s}/issues`, { issue: { title: 'Last', story_points: 5 } }));
  await ok(admin.post(`${s}/activate`));
  const moved = await ok(admin.patch(`${s}/issues/${target.id}`, { issue: { status: 'in_progress' } }));
  const backlog = await ok(admin.post(`${p}/issues`, { issue: { title: 'Backlog one' } }));
  return { project, p, sprint, s, first, target: moved, last, backlog, targetPath: `${s}/issues/${target.id}` };
}

type Project = Awaited<ReturnType<typeof issueProject>>;

/** Every read that shows the issue or counts it, with its body, count and ETag where it has them. */
async function snapshot(client: ApiClient, member: ApiClient, f: Project) {
  const read = async (c: ApiClient, path: string) => {
    const res = await c.get(path);
    return { status: res.status, body: res.body, total: res.headers.get('x-total-count'), etag: res.headers.get('etag') };
  };
  const search = async (q: string) => read(client, `/api/v1/issues?q=${encodeURIComponent(q)}`);
  return {
    issue: await read(client, f.targetPath),
    byKey: await read(client, `/api/v1/issues/${f.target.issue_number}`),
    list: await read(client, `${f.s}/issues`),
    page2: await read(client, `${f.s}/issues?per_page=1&page=2`),
    filtered: await read(client, `${f.s}/issues?labels=bug`),
    backlog: await read(client, `${f.p}/issues`),
    sprint: await read(client, f.s),
    report: await read(client, `${f.s}/report`),
    burndown: await read(client, `${f.s}/burndown`),
    board: await read(client, `${f.s}/board`),
    project: await read(client, f.p),
    searched: await search('label:bug'),
    text: await search('Safari'),
    mine: await read(member, '/api/v1/me/issues'),
    others: await Promise.all([f.first, f.last].map((i) => read(client, `${f.s}/issues/${i.id}`))),
  };
}

const itemAt = async (key: { PK: string; SK: string }) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const trashKey = (orgId: number, issueId: number) => keys.trash(orgId, keys.issue(orgId, 0, issueId).SK);

/** What is left of issue `issueId`: the issue, its number's pointer, its search record, its assignee entry, its trash item. */
const leftOf = async (orgId: number, f: Project, issueId: number, number: string, assigneeId: number) =>
  (
    await Promise.all([
      itemAt(keys.issue(orgId, f.project.id, issueId)),
      itemAt(keys.issueKey(orgId, number)),
      itemAt(keys.searchIssue(orgId, f.project.id, issueId)),
      itemAt(keys.assignedIssue(orgId, assigneeId, f.project.id, issueId)),
      itemAt(trashKey(orgId, issueId)),
    ])
  ).filter((i) => i !== undefined);

/** Every item stored under issue `issueId` in its project's partition (comments, activity, attachments). */
async function under(orgId: number, projectId: number, issueId: number) {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :under)',
      ExpressionAttributeValues: {
        ':pk': keys.issue(orgId, projectId, issueId).PK,
        ':under': `${keys.issue(orgId, projectId, issueId).SK}#`,
      },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

describe('issues in the trash', () => {
  it('a delete takes an issue out of every read, and its restore makes every read as it was', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    const before = await snapshot(admin, member, f);
    expect(before.list.total).toBe('3');
    expect(before.mine.total).toBe('1');
    const stored = await itemAt(keys.issue(org.orgId, f.project.id, f.target.id));

    // The delete costs what it did before the trash: token, one BatchGetItem, one transaction.
    const deleted = await admin.delete(f.targetPath);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    const gone = await snapshot(admin, member, f);
    expect(gone.issue.status).toBe(404);
    expect(gone.byKey.status).toBe(404);
    expect(gone.list.total).toBe('2');
    expect(gone.list.body.map((i: { id: number }) => i.id)).toEqual([f.first.id, f.last.id]);
    expect(gone.page2.body.map((i: { id: number }) => i.id)).toEqual([f.last.id]);
    expect(gone.filtered.body).toEqual([]);
    expect(gone.searched.body).toEqual([]);
    expect(gone.text.body).toEqual([]);
    expect(gone.mine.body).toEqual([]);
    expect(gone.mine.total).toBe('0');
    expect(gone.sprint.body).not.toEqual(before.sprint.body);
    expect(gone.board.body).not.toEqual(before.board.body);
    expect(gone.burndown.body).not.toEqual(before.burndown.body);
    // The issue after it moves up a place; nothing else of the others changes.
    expect(gone.others.map((o) => o.body)).toEqual([before.others[0]!.body, { ...before.others[1]!.body, position: 2 }]);
    expect(gone.backlog).toEqual(before.backlog);
    // No write reaches it any more.
    expect((await admin.patch(f.targetPath, { issue: { title: 'x' } })).status).toBe(404);
    expect((await admin.delete(f.targetPath)).status).toBe(404);

    // In the trash, whole: exactly the issue as it was stored.
    expect((await itemAt(trashKey(org.orgId, f.target.id)))?.stored).toEqual(stored);
    const entry = {
      id: `issue-${f.target.id}`,
      kind: 'issue',
      item_id: f.target.id,
      title: `${f.target.issue_number} Login fails on Safari`,
      deleted_by: org.admin.id,
    };
    expect((await admin.get('/api/v1/trash?kind=issue')).body).toEqual([expect.objectContaining(entry)]);

    // Back with the same id and number, at its own place: every read as it was, its ETag too.
    const restored = await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({ kind: 'issue', item: before.issue.body, placed: 'as_before' });
    // Token, trash item, transaction, then the answer as GET reads it (the issue, then its place):
    // the call-budget table's reason (test/support/call-budgets.ts).
    expect([restored.dbCalls, restored.roundTrips]).toEqual([5, 5]);
    // The sprint's ETag alone has moved on: its counters were written twice (as any issue's
    // create and delete write them).
    const after = await snapshot(admin, member, f);
    expect(after.sprint.etag).not.toBe(before.sprint.etag);
    const unversioned = (s: typeof before) => ({ ...s, sprint: { ...s.sprint, etag: null } });
    expect(unversioned(after)).toEqual(unversioned(before));
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`)).status).toBe(404);
    // An ETag of before the delete names it again.
    const again = await admin.patch(
      f.targetPath,
      { issue: { title: 'Edited' } },
      { headers: { 'If-Match': before.issue.etag! } },
    );
    expect(again.status).toBe(200);
    // The sprint's report: the delete's removal was taken back, nothing was added.
    expect((await admin.post(`${f.s}/complete`)).status).toBe(200);
    expect((await admin.get(f.s)).body.report).toMatchObject({
      committed: { issues: 3, story_points: 10 },
      added: { issues: 0, story_points: 0 },
      removed: { issues: 0, story_points: 0 },
    });
  });

  it("shows a member their own deletions; an admin's deletion is hidden from members and other organisations", async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    expect((await member.delete(`${f.s}/issues/${f.first.id}`)).status).toBe(204);
    await expectTrashedBy(member, admin, { id: `issue-${f.first.id}`, kind: 'issue' }, 'label');
    expect((await member.post(`/api/v1/trash/issue-${f.first.id}/restore`)).status).toBe(200);
    expect((await admin.get(`${f.s}/issues/${f.first.id}`)).body).toEqual(f.first);

    expect((await admin.delete(f.targetPath)).status).toBe(204);
    await expectHiddenFromOthers(member, gateway, `/api/v1/trash/issue-${f.target.id}`);
    expect((await admin.get(f.targetPath)).status).toBe(404);
  });

  it('restores into the backlog when its sprint is gone, counts it as added scope when the sprint was activated since, and refuses with 422 when its project is gone', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);

    // Its sprint deleted meanwhile: at the end of the backlog, and the answer says so.
    expect((await admin.delete(`${f.s}/issues/${f.last.id}`)).status).toBe(204);
    expect((await admin.delete(f.s)).status).toBe(204);
    const backlogBefore = (await admin.get(`${f.p}/issues`)).body.map((i: { id: number }) => i.id);
    const restored = await admin.post(`/api/v1/trash/issue-${f.last.id}/restore`);
    // Its sprint gone: the transaction refused, the sprint read, a place taken, written again.
    const budget = budgetOf(routes.find((r) => r.method === 'POST' && r.path === '/api/v1/trash/{trash_id}/restore')!);
    expect(restored.dbCalls).toBeLessThanOrEqual(budget.calls);
    expect(restored.roundTrips).toBeLessThanOrEqual(budget.roundTrips);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.placed).toBe('backlog_end');
    expect(restored.body.item).toMatchObject({
      id: f.last.id,
      issue_number: f.last.issue_number,
      sprint_id: null,
      position: backlogBefore.length + 1,
    });
    const backlog = await admin.get(`${f.p}/issues`);
    expect(backlog.body.map((i: { id: number }) => i.id)).toEqual([...backlogBefore, f.last.id]);
    expect(backlog.headers.get('x-total-count')).toBe(String(backlogBefore.length + 1));
    expect((await admin.get(`/api/v1/issues/${f.last.issue_number}`)).body).toEqual(restored.body.item);

    // Deleted from a planned sprint that was activated before the restore: added scope, as any issue joining it.
    const two = await ok(admin.post(`${f.p}/sprints`, { sprint: { name: 'Two' } }));
    const t = `${f.p}/sprints/${two.id}`;
    const joined = await ok(admin.post(`${t}/issues`, { issue: { title: 'Joins', story_points: 4 } }));
    expect((await admin.delete(`${t}/issues/${joined.id}`)).status).toBe(204);
    await ok(admin.post(`${t}/activate`));
    expect((await admin.post(`/api/v1/trash/issue-${joined.id}/restore`)).body.placed).toBe('as_before');
    expect((await admin.get(t)).body).toMatchObject({ issues_count: 1, total_story_points: 4 });
    expect((await admin.post(`${t}/complete`)).status).toBe(200);
    expect((await admin.get(t)).body.report).toMatchObject({
      committed: { issues: 0, story_points: 0 },
      added: { issues: 1, story_points: 4 },
      removed: { issues: 0, story_points: 0 },
    });

    // Its project deleted: refused, naming the project (in the trash, then purged); nothing comes back.
    expect((await admin.delete(`${f.p}/issues/${f.backlog.id}`)).status).toBe(204);
    expect((await admin.delete(f.p)).status).toBe(204);
    const orphan = await admin.post(`/api/v1/trash/issue-${f.backlog.id}/restore`);
    expect(orphan.status).toBe(422);
    expect(orphan.body).toEqual({
      error: `Issue ${f.backlog.issue_number} cannot come back: its project ${f.project.id} is in the trash (restore the project first)`,
    });
    await purgeOnceHeld(admin, `project-${f.project.id}`);
    const purged = await admin.post(`/api/v1/trash/issue-${f.backlog.id}/restore`);
    expect(purged.body).toEqual({
      error: `Issue ${f.backlog.issue_number} cannot come back: its project ${f.project.id} no longer exists`,
    });
    expect((await admin.get(`/api/v1/trash/issue-${f.backlog.id}`)).status).toBe(200);
  });

  it('comes back in the state its state moved its issues to, when that state was deleted while it was away: category, times, counters and search as the others', async () => {
    const { admin } = await orgWithClients(gateway);
    const { project, p, review, done } = await projectWithReview(admin);
    const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'One' } }));
    const s = `${p}/sprints/${sprint.id}`;
    const [stays, away] = [
      await ok(admin.post(`${s}/issues`, { issue: { title: 'Stays', story_points: 2 } })),
      await ok(admin.post(`${s}/issues`, { issue: { title: 'Away', story_points: 3 } })),
    ];
    for (const issue of [stays, away]) await ok(admin.patch(`${s}/issues/${issue.id}`, { issue: { state_id: review.id } }));
    const read = await admin.get(`${s}/issues/${away.id}`);
    const before = read.body;
    expect(before).toMatchObject({ state_id: review.id, status_category: 'in_progress', completed_at: null });
    expect(before.started_at).not.toBeNull();

    expect((await admin.delete(`${s}/issues/${away.id}`)).status).toBe(204);
    // Review deleted, its issues (`stays`; `away` is in the trash) moved to done, another category.
    await deleteReviewInto(admin, { p, review, done }, stays.issue_number);

    const restored = await admin.post(`/api/v1/trash/issue-${away.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    // Refused on its state, the project read, written again: within the route's budget.
    const budget = budgetOf(routes.find((r) => r.method === 'POST' && r.path === '/api/v1/trash/{trash_id}/restore')!);
    expect(restored.dbCalls).toBeLessThanOrEqual(budget.calls);
    expect(restored.roundTrips).toBeLessThanOrEqual(budget.roundTrips);
    const item = restored.body.item;
    expect(item).toMatchObject({ id: away.id, state_id: done.id, status_category: 'done', started_at: before.started_at });
    expect(item.completed_at).not.toBeNull();
    // A new version: no ETag of before matches it.
    const after = await admin.get(`${s}/issues/${away.id}`);
    expect(after.body).toEqual(item);
    expect(after.headers.get('etag')).not.toBe(read.headers.get('etag'));
    // Counted as done, as the issue that stayed: the sprint's counters, the board, search.
    expect(await ok(admin.get(s))).toMatchObject({ issues_count: 2, total_story_points: 5, completed_story_points: 5 });
    const board = await ok(admin.get(`${s}/board`));
    const column = (id: number) => board.columns.find((c: { state: { id: number } }) => c.state.id === id);
    expect(column(done.id)).toMatchObject({ count: 2, story_points: 5 });
    expect(board.columns.map((c: { state: { id: number } }) => c.state.id)).not.toContain(review.id);
    const found = async (q: string) =>
      ((await ok(admin.get(`/api/v1/issues?q=${encodeURIComponent(`${q} project:${project.prefix}`)}`))) as { id: number }[])
        .map((i) => i.id)
        .sort((a, b) => a - b);
    expect(await found('status:done')).toEqual([stays.id, away.id].sort((a, b) => a - b));
    expect(await found('status:in_progress')).toEqual([]);
  });

  it('a purge leaves nothing of it, nor of what lived under it; neither does its expiry', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    await ok(admin.post(`${f.targetPath}/comments`, { comment: { body: 'A comment' } }));
    expect((await admin.delete(f.targetPath)).status).toBe(204);
    expect((await admin.delete(`${f.s}/issues/${f.first.id}`)).status).toBe(204);
    // In the trash, what lives under it is kept (the cascade skips it).
    await eventually(
      'the change feed to have handled the delete',
      async () => under(org.orgId, f.project.id, f.target.id),
      (items) => items.some((i) => i.type === 'comment'),
    );
    expect(await leftOf(org.orgId, f, f.target.id, f.target.issue_number, org.member.id)).toHaveLength(1);

    expect((await admin.delete(`/api/v1/trash/issue-${f.target.id}`)).status).toBe(204);
    expect(await leftOf(org.orgId, f, f.target.id, f.target.issue_number, org.member.id)).toEqual([]);
    expect((await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`)).status).toBe(404);
    await eventually(
      'the cascade to remove what lived under the purged issue',
      async () => under(org.orgId, f.project.id, f.target.id),
      (items) => items.length === 0,
      bounds.cascade(),
    );

    // Past its retention: treated as purged at once; the TTL's delete then runs the same cascade.
    await pastRetention(trashKey(org.orgId, f.first.id));
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/issue-${f.first.id}/restore`)).status).toBe(404);
    await db.send(new DeleteCommand({ TableName: tableName(), Key: trashKey(org.orgId, f.first.id) }));
    expect(await leftOf(org.orgId, f, f.first.id, f.first.issue_number, org.member.id)).toEqual([]);
    await eventually(
      'the cascade of the expired issue',
      async () => under(org.orgId, f.project.id, f.first.id),
      (items) => items.length === 0,
      bounds.cascade(),
    );
  });

  it('brings back its relations where the other issue is still there, on both sides, with the counts of open blockers', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    const other = await ok(admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } }));
    const elsewhere = await ok(admin.post(`/api/v1/projects/${other.id}/issues`, { issue: { title: 'Elsewhere' } }));
    const key = f.target.issue_number;
    const relate = (type: string, to: string) =>
      ok(admin.post(`/api/v1/issues/${key}/relations`, { relation: { type, issue_key: to } }));
    await relate('blocks', f.last.issue_number);
    await relate('blocked_by', f.first.issue_number);
    await relate('relates_to', elsewhere.issue_number);
    await relate('duplicates', f.backlog.issue_number);
    await ok(admin.post(`${f.targetPath}/comments`, { comment: { body: 'Kept in the trash' } }));
    const keys = [key, f.last.issue_number, f.first.issue_number, elsewhere.issue_number, f.backlog.issue_number];
    const reads = async () => ({
      snapshot: await snapshot(admin, member, f),
      relations: await Promise.all(keys.map(async (k) => (await admin.get(`/api/v1/issues/${k}/relations`)).body)),
      issues: await Promise.all(keys.slice(1).map(async (k) => (await admin.get(`/api/v1/issues/${k}`)).body)),
      blocked: (await admin.get(`/api/v1/issues?q=${encodeURIComponent('is:blocked')}`)).body.map((i: { id: number }) => i.id),
      comments: (await admin.get(`${f.targetPath}/comments`)).body,
    });
    const before = await reads();
    expect(before.blocked.sort()).toEqual([f.target.id, f.last.id].sort());

    // The backlog issue it duplicates goes first (with its side of the relation): the issue's
    // restore leaves that relation off; the backlog issue's own restore brings it back on both sides.
    expect((await admin.delete(`${f.p}/issues/${f.backlog.id}`)).status).toBe(204);
    expect((await admin.delete(f.targetPath)).status).toBe(204);
    // The other sides lose it at once, and the issue it blocked is blocked no more.
    for (const k of keys.slice(1, 4)) expect((await admin.get(`/api/v1/issues/${k}/relations`)).body).toEqual([]);
    expect((await admin.get(`/api/v1/issues/${f.last.issue_number}`)).body.blocked).toBe(false);
    expect((await admin.get(`/api/v1/issues?q=${encodeURIComponent('is:blocked')}`)).body).toEqual([]);

    const restored = await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const after = await reads();
    const without = (relations: { issue_key?: string; other?: { issue_key?: string } }[]) =>
      relations.filter((r) => !JSON.stringify(r).includes(f.backlog.issue_number));
    expect(after.relations[0]).toEqual(without(before.relations[0]));
    expect(after.relations.slice(1, 4)).toEqual(before.relations.slice(1, 4));
    expect(after.issues.slice(0, 3)).toEqual(before.issues.slice(0, 3));
    expect(after.blocked.sort()).toEqual(before.blocked.sort());
    expect(after.comments).toEqual(before.comments);
    // Not as it was (a relation stayed off): its ETag moved on.
    expect(after.snapshot.issue.etag).not.toBe(before.snapshot.issue.etag);
    expect(after.snapshot.issue.body).toEqual(before.snapshot.issue.body);

    // The backlog issue back too: its relation to the restored issue comes back on both sides.
    expect((await admin.post(`/api/v1/trash/issue-${f.backlog.id}/restore`)).status).toBe(200);
    expect((await admin.get(`/api/v1/issues/${key}/relations`)).body).toEqual(before.relations[0]);
    expect((await admin.get(`/api/v1/issues/${f.backlog.issue_number}/relations`)).body).toEqual(before.relations[4]);
  });

  it('comes back without its parent when the parent has 100 sub-issues by then, or the chain would be deeper than 5 levels', async () => {
    const { admin } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Tree', prefix: randomPrefix() } }));
    const p = `/api/v1/projects/${project.id}`;
    const full = await ok(admin.post(`${p}/issues`, { issue: { title: 'Parent' } }));
    const child = await ok(admin.post(`${p}/issues`, { issue: { title: 'Child', parent_id: full.id } }));
    expect((await admin.delete(`${p}/issues/${child.id}`)).status).toBe(204);
    // 100 sub-issues while it is away (the most a parent may have).
    const bulk = await ok(
      admin.post(`${p}/issues/bulk`, {
        items: Array.from({ length: 100 }, (_, n) => ({ issue: { title: `Sub ${n}`, parent_id: full.id } })),
      }),
    );
    expect(bulk.results.every((r: { status: number }) => r.status === 201)).toBe(true);
    const restored = await admin.post(`/api/v1/trash/issue-${child.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.item).toMatchObject({ id: child.id, parent_id: null });
    expect((await ok(admin.get(`${p}/issues/${full.id}`))).sub_issues_summary.total).toBe(100);
    const subs = await ok(admin.get(`/api/v1/issues/${full.issue_number}/sub_issues?per_page=100`));
    expect(subs.map((i: { id: number }) => i.id)).not.toContain(child.id);

    // A chain A > B > C > D with E under D (5 levels); E away, a new root above A: E back would be the 6th.
    const chain: { id: number }[] = [];
    for (const title of ['A', 'B', 'C', 'D', 'E'])
      chain.push(await ok(admin.post(`${p}/issues`, { issue: { title, parent_id: chain.at(-1)?.id ?? null } })));
    const [a, , , d, e] = chain;
    expect((await admin.delete(`${p}/issues/${e!.id}`)).status).toBe(204);
    const root = await ok(admin.post(`${p}/issues`, { issue: { title: 'Root' } }));
    await ok(admin.patch(`${p}/issues/${a!.id}`, { issue: { parent_id: root.id } }));
    const deep = await admin.post(`/api/v1/trash/issue-${e!.id}/restore`);
    expect(deep.status, JSON.stringify(deep.body)).toBe(200);
    expect(deep.body.item.parent_id).toBeNull();
    expect((await ok(admin.get(`${p}/issues/${d!.id}`))).sub_issues_summary.total).toBe(0);

    // With room and depth, it comes back under its parent, counted.
    const f = await ok(admin.post(`${p}/issues`, { issue: { title: 'F', parent_id: root.id } }));
    expect((await admin.delete(`${p}/issues/${f.id}`)).status).toBe(204);
    const back = await ok(admin.post(`/api/v1/trash/issue-${f.id}/restore`));
    expect(back.item.parent_id).toBe(root.id);
    expect((await ok(admin.get(`${p}/issues/${root.id}`))).sub_issues_summary.total).toBe(2);
  });

  it("keeps its children's links while it is in the trash, and counts them again at its restore as they are then", async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    const byKey = async (k: string) => (await admin.get(`/api/v1/issues/${k}`)).body;
    const child = (title: string, extra: object) =>
      ok(admin.post(`${f.p}/issues`, { issue: { title, parent_id: f.target.id, ...extra } }));
    await ok(admin.patch(f.targetPath, { issue: { parent_id: f.first.id } }));
    const done = await child('Done child', { story_points: 2, status: 'done' });
    const open = await child('Open child', { story_points: 3 });
    const parentBefore = await byKey(f.target.issue_number);
    expect(parentBefore.sub_issues_summary).toEqual({ total: 2, done: 1, story_points: 5, completed_story_points: 2 });
    expect((await byKey(f.first.issue_number)).sub_issues_summary.total).toBe(1);

    expect((await admin.delete(f.targetPath)).status).toBe(204);
    // Its parent's summary moves at once; its children keep their link, and may change meanwhile.
    expect((await byKey(f.first.issue_number)).sub_issues_summary.total).toBe(0);
    expect((await admin.get(`/api/v1/issues/${f.target.issue_number}/sub_issues`)).status).toBe(404);
    expect((await byKey(done.issue_number)).parent_id).toBe(f.target.id);
    await ok(admin.patch(`${f.p}/issues/${done.id}`, { issue: { story_points: 8 } }));
    // A child deleted while its parent is in the trash: it comes back without a parent.
    expect((await admin.delete(`${f.p}/issues/${open.id}`)).status).toBe(204);

    const restored = await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.item.parent_id).toBe(f.first.id);
    expect(restored.body.item.sub_issues_summary).toEqual({ total: 1, done: 1, story_points: 8, completed_story_points: 8 });
    expect((await byKey(f.first.issue_number)).sub_issues_summary.total).toBe(1);
    const children = (await admin.get(`/api/v1/issues/${f.target.issue_number}/sub_issues`)).body;
    expect(children.map((c: { id: number }) => c.id)).toEqual([done.id]);

    // Its child back now: its parent is there, so it is its child again.
    expect((await admin.post(`/api/v1/trash/issue-${open.id}/restore`)).status).toBe(200);
    expect((await byKey(f.target.issue_number)).sub_issues_summary).toEqual({
      total: 2,
      done: 1,
      story_points: 11,
      completed_story_points: 8,
    });

    // Deleted again and purged: its children lose their parent (the cascade); one in the trash
    // then comes back without a parent.
    expect((await admin.delete(`${f.p}/issues/${open.id}`)).status).toBe(204);
    expect((await admin.delete(f.targetPath)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/issue-${f.target.id}`)).status).toBe(204);
    await eventually(
      'the purge to release its child',
      () => byKey(done.issue_number),
      (i) => i.parent_id === null,
      bounds.cascade(),
    );
    const orphan = await admin.post(`/api/v1/trash/issue-${open.id}/restore`);
    expect(orphan.status).toBe(200);
    expect(orphan.body.item).toMatchObject({ id: open.id, parent_id: null });
  });

  it('over MCP: delete_issue moves it into the trash, list_trash shows it, restore brings it back as the REST route does', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await issueProject(admin, org.member.id);
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const before = (await admin.get(f.targetPath)).body;
    await mcp.ok('delete_issue', { project_id: f.project.id, issue_id: f.target.id });
    expect((await admin.get(f.targetPath)).status).toBe(404);
    const listed = await mcp.ok('list_trash', {});
    expect(listed.trash).toEqual([expect.objectContaining({ id: `issue-${f.target.id}`, kind: 'issue', item_id: f.target.id })]);
    const restored = await mcp.ok('restore', { id: `issue-${f.target.id}` });
    expect(restored.restored).toEqual({ kind: 'issue', item: before, placed: 'as_before' });
    expect((await admin.get(f.targetPath)).body).toEqual(before);
    await mcp.close();
  });

  it('tells subscribed endpoints and the issue history of each restore and purge: issue.restored and issue.purged', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const r = await receivers.start();
    const events = ['issue.created', 'issue.deleted', 'issue.restored', 'issue.purged'];
    const hook = await ok(admin.post('/api/v1/webhooks', { webhook: { url: r.url, events } }));
    r.secret = hook.secret;
    const f = await issueProject(admin, org.member.id);

    expect((await admin.delete(f.targetPath)).status).toBe(204);
    expect((await admin.post(`/api/v1/trash/issue-${f.target.id}/restore`)).status).toBe(200);
    expect((await admin.delete(`${f.s}/issues/${f.first.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/issue-${f.first.id}`)).status).toBe(204);

    // Four creates, two deletes, a restore and a purge, in whatever order their deliveries land.
    await waitFor(() => r.accepted().length >= 8, 90_000, 'eight issue events');
    const got = r.accepted().map((d) => d.body);
    const of = (type: string) => got.filter((b) => b.type === type).map((b) => b.data);
    const { position: _place, labels: _labels, custom_fields: _values, ...shown } = f.target;
    expect(of('issue.restored')).toEqual([
      expect.objectContaining({
        organisation_id: org.orgId,
        project_id: f.project.id,
        actor_id: org.admin.id,
        issue: expect.objectContaining({ ...shown, label_ids: [expect.any(Number)] }),
        changes: [],
      }),
    ]);
    expect(of('issue.purged')).toEqual([
      expect.objectContaining({ actor_id: org.admin.id, issue: expect.objectContaining({ id: f.first.id }) }),
    ]);
    // The restore's write of the issue is no new issue.
    expect(
      of('issue.created')
        .map((d) => d.issue.id)
        .sort((a, b) => a - b),
    ).toEqual([f.first.id, f.target.id, f.last.id, f.backlog.id].sort((a, b) => a - b));

    const activity = await eventually(
      'the restore in the issue history',
      async () => (await admin.get(`${f.targetPath}/activity?per_page=100`)).body as { event: string }[],
      (entries) => Array.isArray(entries) && entries.some((e) => e.event === 'issue.restored'),
      bounds.changeFeed,
    );
    expect(activity.filter((e) => e.event === 'issue.restored')).toHaveLength(1);
  }, 120_000);
});

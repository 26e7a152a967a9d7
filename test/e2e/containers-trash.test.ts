import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, projectPk } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { deleteReviewInto, heldInTrash, pastRetention, projectWithReview, restoreWhole } from '../support/trash.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * Sprints and projects in the trash end to end (docs/trash.md): a delete takes the sprint or
 * project, and every issue in it, out of every read at once (their GETs, lists and counts, search,
 * my issues, the relations and sub-issue summaries of issues outside it, velocity) and into the
 * trash; once its issues are taken out of what is kept of them outside it (`held`), a restore puts
 * them back (202, its progress on its trash item) and then it, and every read is as it was before
 * the delete; a purge, or its expiry, leaves nothing of it.
 */

const gateway = useGateway();

/**
 * A project with a backlog issue (`outside`, the parent of a sprint issue and blocked by another)
 * and a sprint of three issues, the middle one assigned to the member, with a comment and a label,
 * a completed sprint before it (its velocity), and an issue of another project related to a sprint issue.
 */
async function world(admin: ApiClient, memberId: number) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Trash', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  await ok(admin.post(`${p}/labels`, { label: { name: 'bug' } }));
  const done = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'Done one' } }));
  await ok(admin.post(`${p}/sprints/${done.id}/issues`, { issue: { title: 'Shipped', story_points: 1 } }));
  await ok(admin.post(`${p}/sprints/${done.id}/activate`));
  await ok(
    admin.patch(`${p}/sprints/${done.id}/issues/${(await admin.get(`${p}/sprints/${done.id}/issues`)).body[0].id}`, {
      issue: { status: 'done' },
    }),
  );
  await ok(admin.post(`${p}/sprints/${done.id}/complete`));
  const outside = await ok(admin.post(`${p}/issues`, { issue: { title: 'Parent in the backlog' } }));
  const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'To trash' } }));
  const s = `${p}/sprints/${sprint.id}`;
  const first = await ok(admin.post(`${s}/issues`, { issue: { title: 'First', story_points: 2, parent_id: outside.id } }));
  const target = await ok(
    admin.post(`${s}/issues`, {
      issue: { title: 'Login fails on Safari', story_points: 3, labels: ['bug'], assignee_id: memberId },
    }),
  );
  const last = await ok(admin.post(`${s}/issues`, { issue: { title: 'Last', story_points: 5 } }));
  await ok(admin.post(`${s}/activate`));
  await ok(admin.post(`${s}/issues/${target.id}/comments`, { comment: { body: 'Kept in the trash' } }));
  const other = await ok(admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } }));
  const elsewhere = await ok(admin.post(`/api/v1/projects/${other.id}/issues`, { issue: { title: 'Elsewhere' } }));
  const relate = (from: string, type: string, to: string) =>
    ok(admin.post(`/api/v1/issues/${from}/relations`, { relation: { type, issue_key: to } }));
  await relate(target.issue_number, 'blocks', outside.issue_number);
  await relate(target.issue_number, 'relates_to', elsewhere.issue_number);
  await relate(first.issue_number, 'blocks', last.issue_number);
  const issues = [first, target, last];
  return { project, p, done, sprint, s, outside, issues, target, other, elsewhere };
}

type World = Awaited<ReturnType<typeof world>>;

const read = async (c: ApiClient, path: string) => {
  const res = await c.get(path);
  return { status: res.status, body: res.body, total: res.headers.get('x-total-count'), etag: res.headers.get('etag') };
};

/** Every read that shows the sprint, its issues, or what issues outside it keep of them. */
async function sprintReads(admin: ApiClient, member: ApiClient, f: World) {
  const search = (q: string) => read(admin, `/api/v1/issues?q=${encodeURIComponent(q)}`);
  return {
    project: await read(admin, f.p),
    sprints: await read(admin, `${f.p}/sprints`),
    sprint: await read(admin, f.s),
    list: await read(admin, `${f.s}/issues`),
    board: await read(admin, `${f.s}/board`),
    burndown: await read(admin, `${f.s}/burndown`),
    velocity: await read(admin, `${f.p}/velocity`),
    byId: await Promise.all(f.issues.map((i) => read(admin, `${f.s}/issues/${i.id}`))),
    byKey: await Promise.all(f.issues.map((i) => read(admin, `/api/v1/issues/${i.issue_number}`))),
    comments: await read(admin, `${f.s}/issues/${f.target.id}/comments`),
    text: await search('Safari'),
    label: await search('label:bug'),
    blocked: await search('is:blocked'),
    mine: await read(member, '/api/v1/me/issues'),
    outside: await read(admin, `/api/v1/issues/${f.outside.issue_number}`),
    outsideRelations: await read(admin, `/api/v1/issues/${f.outside.issue_number}/relations`),
    elsewhereRelations: await read(admin, `/api/v1/issues/${f.elsewhere.issue_number}/relations`),
    backlog: await read(admin, `${f.p}/issues`),
  };
}

const held = heldInTrash;

const itemAt = async (key: { PK: string; SK: string }) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** Every item in a project's partition. */
async function partition(orgId: number, projectId: number) {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId) },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

describe('sprints in the trash', () => {
  it('a delete takes a sprint and its issues out of every read, and its restore makes every read as it was', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await world(admin, org.member.id);
    const before = await sprintReads(admin, member, f);
    expect(before.mine.total).toBe('1');
    expect(before.outside.body.blocked).toBe(true);
    expect(before.outside.body.sub_issues_summary).toMatchObject({ total: 1 });
    expect(before.elsewhereRelations.body).toHaveLength(1);

    const deleted = await admin.delete(f.s);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    const trashId = `sprint-${f.sprint.id}`;
    const entry = await held(admin, trashId);
    // While its issues are still being taken out (set here, as it is for the seconds after a
    // delete): no restore, no purge yet.
    const trashKey = keys.trash(org.orgId, keys.sprint(org.orgId, 0, f.sprint.id).SK);
    const setState = (state: string) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: trashKey,
          UpdateExpression: 'SET #state = :state',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':state': state },
        }),
      );
    await setState('withdrawing');
    const early = await admin.post(`/api/v1/trash/${trashId}/restore`);
    expect([early.status, early.headers.get('retry-after')]).toEqual([409, '2']);
    await setState('held');
    expect(entry).toMatchObject({
      id: trashId,
      kind: 'sprint',
      item_id: f.sprint.id,
      title: 'To trash',
      deleted_by: org.admin.id,
    });

    const gone = await sprintReads(admin, member, f);
    expect(gone.sprint.status).toBe(404);
    expect(gone.list.status).toBe(404);
    expect(gone.sprints.total).toBe(String(Number(before.sprints.total) - 1));
    expect(gone.project.body.sprints_count).toBe(before.project.body.sprints_count - 1);
    expect(gone.byId.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(gone.byKey.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(gone.comments.status).toBe(404);
    expect([gone.text.body, gone.label.body, gone.blocked.body]).toEqual([[], [], []]);
    expect([gone.mine.body, gone.mine.total]).toEqual([[], '0']);
    expect(gone.outside.body.blocked).toBe(false);
    expect(gone.outside.body.sub_issues_summary).toMatchObject({ total: 0 });
    expect(gone.outsideRelations.body).toEqual([]);
    expect(gone.elsewhereRelations.body).toEqual([]);
    // The backlog shows the same issues (the parent no longer counts its child, nor is it blocked).
    expect(gone.backlog.body.map((i: { id: number }) => i.id)).toEqual(before.backlog.body.map((i: { id: number }) => i.id));
    // No write reaches its issues.
    expect((await admin.patch(`${f.s}/issues/${f.target.id}`, { issue: { title: 'x' } })).status).toBe(404);

    const started = await restoreWhole(admin, trashId);
    expect(started).toMatchObject({
      kind: 'sprint',
      item: before.sprint.body,
      restore: { id: trashId, state: 'restoring', issues_total: 3, issues_returned: 0 },
    });
    // The project's ETag alone has moved on: its `sprints_count` was written twice (as a sprint's
    // create and delete write it); the sprint's own is as before.
    const after = await sprintReads(admin, member, f);
    expect(after.project.etag).not.toBe(before.project.etag);
    const unversioned = (r: typeof before) => ({ ...r, project: { ...r.project, etag: null } });
    expect(unversioned(after)).toEqual(unversioned(before));
    expect(after.sprint.etag).toBe(before.sprint.etag);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
  });

  it('keeps what its issues hold of each other, and refuses to come back while its project is in the trash', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await world(admin, org.member.id);
    const [first, , last] = f.issues;
    const relations = async () => (await admin.get(`/api/v1/issues/${last!.issue_number}/relations`)).body;
    const linked = await relations();
    expect(linked).toHaveLength(1);
    // A comment deleted before its sprint, and a label before its project, name what to restore first.
    const comment = (await admin.get(`${f.s}/issues/${f.target.id}/comments`)).body[0];
    expect((await admin.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);
    const label = (await admin.get(`${f.p}/labels`)).body[0];
    expect((await admin.delete(`${f.p}/labels/${label.id}`)).status).toBe(204);
    expect((await admin.delete(f.s)).status).toBe(204);
    expect((await admin.post(`/api/v1/trash/comment-${comment.id}/restore`)).body.error).toBe(
      `Comment ${comment.id} cannot come back: sprint ${f.sprint.id}, which its issue ${f.target.id} is in, is in the trash (restore the sprint first)`,
    );
    await held(admin, `sprint-${f.sprint.id}`);
    // Inside the trashed sprint, the issues keep their relation (no read shows it meanwhile).
    const stored = await itemAt(keys.issue(org.orgId, f.project.id, last!.id));
    expect(Object.keys(stored?.relations ?? {})).toHaveLength(1);

    expect((await admin.delete(f.p)).status).toBe(204);
    await held(admin, `project-${f.project.id}`);
    const refused = await admin.post(`/api/v1/trash/sprint-${f.sprint.id}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/^Its project .* is in the trash: restore the project first$/);
    expect((await admin.post(`/api/v1/trash/label-${label.id}/restore`)).body.error).toBe(
      `Label ${label.id} cannot come back: its project ${f.project.id} is in the trash (restore the project first)`,
    );

    // The project back first, then the sprint: its issues stayed out with it until then.
    await restoreWhole(admin, `project-${f.project.id}`);
    expect((await admin.get(`/api/v1/issues/${first!.issue_number}`)).status).toBe(404);
    expect((await read(member, '/api/v1/me/issues')).total).toBe('0');
    await restoreWhole(admin, `sprint-${f.sprint.id}`);
    expect(await relations()).toEqual(linked);
    expect((await admin.get(`/api/v1/issues/${last!.issue_number}`)).body.blocked).toBe(true);
    // Then the comment and the label come back too.
    expect((await admin.post(`/api/v1/trash/comment-${comment.id}/restore`)).status).toBe(200);
    expect((await admin.post(`/api/v1/trash/label-${label.id}/restore`)).status).toBe(200);
    expect((await admin.get(`${f.s}/issues/${f.target.id}/comments`)).body).toEqual([comment]);
    expect((await read(member, '/api/v1/me/issues')).total).toBe('1');
  });

  it("moves its issues off a state deleted while it was in the trash once it is back, as the state's delete moved the others", async () => {
    const { admin } = await orgWithClients(gateway);
    const { project, p, review, done } = await projectWithReview(admin);
    const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'Away' } }));
    const s = `${p}/sprints/${sprint.id}`;
    const issues = [
      await ok(admin.post(`${s}/issues`, { issue: { title: 'In review', story_points: 2 } })),
      await ok(admin.post(`${s}/issues`, { issue: { title: 'Also in review', story_points: 3 } })),
      await ok(admin.post(`${s}/issues`, { issue: { title: 'To do', story_points: 5 } })),
    ];
    for (const issue of issues.slice(0, 2)) await ok(admin.patch(`${s}/issues/${issue.id}`, { issue: { state_id: review.id } }));
    const outside = await ok(admin.post(`${p}/issues`, { issue: { title: 'In the backlog' } }));
    await ok(admin.patch(`${p}/issues/${outside.id}`, { issue: { state_id: review.id } }));

    expect((await admin.delete(s)).status).toBe(204);
    await held(admin, `sprint-${sprint.id}`);
    // Review deleted, its issues moved to done: the one in the backlog, not those in the trash.
    await deleteReviewInto(admin, { p, review, done }, outside.issue_number);

    await restoreWhole(admin, `sprint-${sprint.id}`);
    // Back, its issues in Review are moved to done as the others were: state, category, times,
    // counters, search. (They answer done at once, as the others did before their move was written.)
    await eventually(
      "the sprint's issues in review to be written in done (completed)",
      async () => ((await admin.get(`${s}/issues`)).body as { completed_at: string | null }[]).map((i) => i.completed_at),
      (times) => times.filter((t) => t !== null).length === 2,
      bounds.cascade(),
    );
    const moved = (await ok(admin.get(`${s}/issues`))) as Record<string, any>[];
    expect(moved.map((i) => [i.id, i.status_category])).toEqual([
      [issues[0].id, 'done'],
      [issues[1].id, 'done'],
      [issues[2].id, 'todo'],
    ]);
    for (const issue of moved.slice(0, 2)) expect(issue.completed_at).not.toBeNull();
    expect(await ok(admin.get(s))).toMatchObject({ issues_count: 3, total_story_points: 10, completed_story_points: 5 });
    const board = await ok(admin.get(`${s}/board`));
    expect(board.columns.find((c: { state: { id: number } }) => c.state.id === done.id)).toMatchObject({
      count: 2,
      story_points: 5,
    });
    const found = (await ok(admin.get(`/api/v1/issues?q=${encodeURIComponent(`status:done project:${project.prefix}`)}`))) as {
      id: number;
    }[];
    expect(found.map((i) => i.id).sort((a, b) => a - b)).toEqual([outside.id, issues[0].id, issues[1].id].sort((a, b) => a - b));
  });

  it('a purge leaves nothing of it nor of its issues; neither does its expiry', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await world(admin, org.member.id);
    expect((await admin.delete(f.s)).status).toBe(204);
    await held(admin, `sprint-${f.sprint.id}`);
    expect((await admin.delete(`/api/v1/trash/sprint-${f.sprint.id}`)).status).toBe(204);
    expect((await admin.post(`/api/v1/trash/sprint-${f.sprint.id}/restore`)).status).toBe(404);
    const ofSprint = (items: Record<string, unknown>[]) =>
      items.filter((i) => f.issues.some((x) => String(i.SK).startsWith(keys.issue(org.orgId, f.project.id, x.id).SK)));
    await eventually(
      'the cascade to remove the purged sprint issues and what lived under them',
      async () => ofSprint(await partition(org.orgId, f.project.id)),
      (items) => items.length === 0,
      bounds.cascade(),
    );
    for (const i of f.issues) expect(await itemAt(keys.issueKey(org.orgId, i.issue_number))).toBeUndefined();

    // Past its retention: treated as purged at once; the TTL's delete then runs the same cascade.
    const again = await ok(admin.post(`${f.p}/sprints`, { sprint: { name: 'Expires' } }));
    const one = await ok(admin.post(`${f.p}/sprints/${again.id}/issues`, { issue: { title: 'Goes' } }));
    expect((await admin.delete(`${f.p}/sprints/${again.id}`)).status).toBe(204);
    await held(admin, `sprint-${again.id}`);
    const trashKey = keys.trash(org.orgId, keys.sprint(org.orgId, 0, again.id).SK);
    await pastRetention(trashKey);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/sprint-${again.id}/restore`)).status).toBe(404);
    await db.send(new DeleteCommand({ TableName: tableName(), Key: trashKey }));
    await eventually(
      'the cascade of the expired sprint',
      async () => itemAt(keys.issue(org.orgId, f.project.id, one.id)),
      (item) => item === undefined,
      bounds.cascade(),
    );
  });
});

describe('projects in the trash', () => {
  it('a delete takes a project and everything in it out of every read, and its restore makes every read as it was', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await world(admin, org.member.id);
    const reads = async () => ({
      sprint: await sprintReads(admin, member, f),
      projects: await read(admin, '/api/v1/projects'),
      labels: await read(admin, `${f.p}/labels`),
      organisation: await read(admin, '/api/v1/organisation'),
    });
    const before = await reads();
    const deleted = await admin.delete(f.p);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    const trashId = `project-${f.project.id}`;
    const entry = await held(admin, trashId);
    expect(entry).toMatchObject({ kind: 'project', item_id: f.project.id, title: `${f.project.prefix} Trash` });

    const gone = await reads();
    expect(gone.sprint.project.status).toBe(404);
    expect(gone.projects.total).toBe(String(Number(before.projects.total) - 1));
    expect(gone.sprint.byKey.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(gone.sprint.outside.status).toBe(404);
    expect([gone.sprint.text.body, gone.sprint.label.body, gone.sprint.blocked.body]).toEqual([[], [], []]);
    expect([gone.sprint.mine.body, gone.sprint.mine.total]).toEqual([[], '0']);
    expect(gone.sprint.elsewhereRelations.body).toEqual([]);

    // Its prefix taken meanwhile: refused until it is free again.
    const squatter = await ok(admin.post('/api/v1/projects', { project: { name: 'Squatter', prefix: f.project.prefix } }));
    const refused = await admin.post(`/api/v1/trash/${trashId}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain(`Another project took the prefix ${f.project.prefix}`);
    expect((await admin.delete(`/api/v1/projects/${squatter.id}`)).status).toBe(204);

    const started = await restoreWhole(admin, trashId);
    expect(started).toMatchObject({ kind: 'project', item: before.sprint.project.body, restore: { issues_total: 5 } });
    const after = await reads();
    expect(after.sprint).toEqual(before.sprint);
    expect(after.projects).toEqual(before.projects);
    expect(after.labels).toEqual(before.labels);
    expect(after.organisation.body).toEqual(before.organisation.body);
  });

  it('a purge empties its partition and leaves nothing of its issues outside it', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await world(admin, org.member.id);
    expect((await admin.delete(f.p)).status).toBe(204);
    await held(admin, `project-${f.project.id}`);
    expect((await admin.delete(`/api/v1/trash/project-${f.project.id}`)).status).toBe(204);
    await eventually(
      'the cascade to empty the purged project',
      async () => partition(org.orgId, f.project.id),
      (items) => items.length === 0,
      bounds.cascade(),
    );
    for (const i of [...f.issues, f.outside]) {
      expect(await itemAt(keys.issueKey(org.orgId, i.issue_number))).toBeUndefined();
      expect(await itemAt(keys.searchIssue(org.orgId, f.project.id, i.id))).toBeUndefined();
    }
    expect((await admin.get(`/api/v1/issues/${f.elsewhere.issue_number}/relations`)).body).toEqual([]);
  });
});

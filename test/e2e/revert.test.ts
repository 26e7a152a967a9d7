import { afterAll, describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf, eventually } from '../support/eventually.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * `POST /api/v1/activity/{activity_id}/revert` (docs/activity.md: Reverting a change): each kind of
 * change put back through the write a client would make, the revert recorded as an entry of its own
 * (`reverts`), the refusals (409 with the fields changed since, 412, 404, 422). Entries come from
 * the change feed a moment after each write: the tests wait for them, never sleep.
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

async function setup() {
  const clients = await orgWithClients(gateway);
  const { admin } = clients;
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Undo', prefix: randomPrefix() } })).body;
  const p = `/api/v1/projects/${project.id}`;
  const sprint = (await admin.post(`${p}/sprints`, { sprint: { name: 'One' } })).body;
  const created = async (title: string, extra: object = {}) =>
    (await admin.post(`${p}/issues`, { issue: { title, ...extra } })).body;
  return { ...clients, project, p, sprint, created };
}

/** The entries of `path` once there are `count`; the last one. */
async function lastEntry(client: ApiClient, path: string, count: number) {
  const entries = await activityOf(client, path, count);
  return entries[count - 1];
}

const revert = (client: ApiClient, id: string, headers: Record<string, string> = {}) =>
  client.post(`/api/v1/activity/${id}/revert`, undefined, { headers });

describe('reverting a change', () => {
  it('puts a change of fields back, records the revert with `reverts`, delivers it as an update, and reverts the revert', async () => {
    const { org, admin, p, created } = await setup();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const hook = (await admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['issue.updated'] } })).body;
    receiver.secret = hook.secret;
    const issue = await created('Draft', { story_points: 3 });
    const path = `${p}/issues/${issue.id}`;
    const changes = {
      title: 'Final',
      story_points: 8,
      priority: 'high',
      type: 'bug',
      due_date: '2027-01-31',
      assignee_id: org.member.id,
    };
    expect((await admin.patch(path, { issue: changes })).status).toBe(200);
    const change = await lastEntry(admin, path, 2);

    const reverted = await revert(admin, change.id);
    expect(reverted.status).toBe(200);
    expect(reverted.body).toMatchObject({
      title: 'Draft',
      story_points: 3,
      priority: 'none',
      type: 'task',
      due_date: null,
      assignee_id: null,
    });
    expect(reverted.headers.get('etag')).toMatch(/^"\d+-/);
    expect((await admin.get(path)).body).toMatchObject({ title: 'Draft', story_points: 3, assignee_id: null });

    const undo = await lastEntry(admin, path, 3);
    expect(undo).toMatchObject({ event: 'issue.updated', actor_id: org.admin.id, reverts: change.id });
    expect(undo.changes).toContainEqual({ field: 'title', from: 'Final', to: 'Draft' });
    await waitFor(() => receiver.accepted().some((r) => r.body.data.reverts === change.id), undefined, 'the revert delivered');
    const delivered = receiver.accepted().find((r) => r.body.data.reverts === change.id)!;
    expect(delivered.body.type).toBe('issue.updated');
    expect(delivered.body.data.issue.title).toBe('Draft');
    // The change itself is no revert.
    expect(receiver.accepted().find((r) => r.body.data.issue.title === 'Final')?.body.data.reverts).toBeUndefined();

    // The revert is an entry like any other: reverting it puts the change back.
    const again = await revert(admin, undo.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject(changes);
    expect(await lastEntry(admin, path, 4)).toMatchObject({ reverts: undo.id });
  });

  it('answers 409 naming each field changed since with its value now, and writes nothing', async () => {
    const { admin, p, created } = await setup();
    const issue = await created('One', { story_points: 1 });
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { title: 'Two', story_points: 2 } });
    const first = await lastEntry(admin, path, 2);
    await admin.patch(path, { issue: { title: 'Three' } });
    await activityOf(admin, path, 3);

    const refused = await revert(admin, first.id);
    expect(refused.status).toBe(409);
    expect(refused.body.changed).toEqual([{ field: 'title', value: 'Three' }]);
    expect(refused.body.error).toMatch(/title/);
    expect((await admin.get(path)).body).toMatchObject({ title: 'Three', story_points: 2 });
    // Once the field holds the entry's value again, the revert applies.
    await admin.patch(path, { issue: { title: 'Two' } });
    expect((await revert(admin, first.id)).body).toMatchObject({ title: 'One', story_points: 1 });
  });

  it('puts a state back (its times follow), and a workflow rule that refuses the move back is 422 as a PATCH', async () => {
    const { admin, p, created } = await setup();
    const issue = await created('Work', { status: 'todo' });
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { status: 'done' } });
    const done = await lastEntry(admin, path, 2);
    const back = await revert(admin, done.id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'todo', completed_at: null });

    const states = (await admin.get(`${p}/states`)).body as { id: number; name: string; category: string }[];
    const doneState = states.find((s) => s.category === 'done')!;
    const review = (
      await admin.post(`${p}/states`, {
        state: { name: 'Review', category: 'in_progress', allowed_next_state_ids: [doneState.id] },
      })
    ).body;
    await admin.patch(path, { issue: { state_id: review.id } });
    const entered = await lastEntry(admin, path, 4);
    const refused = await revert(admin, entered.id);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatch(/may not move/);
    expect((await admin.get(path)).body.status).toBe('review');
  });

  it('moves an issue back to the list it left, with both lists counted', async () => {
    const { admin, p, sprint, created } = await setup();
    const issue = await created('Moving');
    await admin.patch(`${p}/issues/${issue.id}`, { issue: { sprint_id: sprint.id } });
    const sprintPath = `${p}/sprints/${sprint.id}`;
    const moved = await lastEntry(admin, `${sprintPath}/issues/${issue.id}`, 2);
    const back = await revert(admin, moved.id);
    expect(back.status).toBe(200);
    expect(back.body.sprint_id).toBeNull();
    expect((await admin.get(sprintPath)).body.issues_count).toBe(0);
    expect((await admin.get(`${p}/issues`)).body.map((i: { id: number }) => i.id)).toEqual([issue.id]);
  });

  it('takes labels added off and puts labels removed back', async () => {
    const { admin, p, created } = await setup();
    const bug = (await admin.post(`${p}/labels`, { label: { name: 'bug', color: '#ff0000' } })).body;
    const ui = (await admin.post(`${p}/labels`, { label: { name: 'ui', color: '#00ff00' } })).body;
    const issue = await created('Labelled', { labels: ['bug'] });
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { labels: ['ui'] } });
    const swap = await lastEntry(admin, path, 2);
    const back = await revert(admin, swap.id);
    expect(back.status).toBe(200);
    expect(back.body.labels.map((l: { id: number }) => l.id)).toEqual([bug.id]);
    // A label put on since: the entry's labels no longer hold what it wrote.
    await admin.patch(path, { issue: { labels: ['ui'] } });
    const again = await lastEntry(admin, path, 4);
    await admin.patch(path, { issue: { labels: [] } });
    await activityOf(admin, path, 5);
    const refused = await revert(admin, again.id);
    expect(refused.status).toBe(409);
    expect(refused.body.changed).toEqual([{ field: 'labels', value: [] }]);
    expect(ui.id).not.toBe(bug.id);
  });

  it('removes a relation added and relates again a relation removed, on both issues', async () => {
    const { admin, p, created } = await setup();
    const blocker = await created('Blocker');
    const blocked = await created('Blocked');
    const relations = `/api/v1/issues/${blocker.issue_number}/relations`;
    const relation = (await admin.post(relations, { relation: { type: 'blocks', issue_key: blocked.issue_number } })).body;
    const blockerPath = `${p}/issues/${blocker.id}`;
    const blockedPath = `${p}/issues/${blocked.id}`;
    expect((await admin.get(blockedPath)).body.blocked).toBe(true);
    const added = await lastEntry(admin, blockerPath, 2);
    expect(added.changes[0]).toMatchObject({ field: 'relations', from: null });

    const removed = await revert(admin, added.id);
    expect(removed.status).toBe(200);
    expect((await admin.get(relations)).body).toEqual([]);
    expect((await admin.get(blockedPath)).body.blocked).toBe(false);
    const undo = await lastEntry(admin, blockerPath, 3);
    expect(undo).toMatchObject({ reverts: added.id });
    expect(undo.changes[0]).toMatchObject({ field: 'relations', to: null });

    // Reverting the removal relates them again, from the other side's entry too.
    const restored = await revert(admin, undo.id);
    expect(restored.status).toBe(200);
    expect((await admin.get(relations)).body.map((r: { id: string }) => r.id)).toEqual([relation.id]);
    expect((await admin.get(blockedPath)).body.blocked).toBe(true);
    // The blocked issue's own entry of the first relation: the relation holds again, so it reverts.
    const theirs = (await activityOf(admin, blockedPath, 4)).find((e) => e.changes[0]?.field === 'relations')!;
    expect((await revert(admin, theirs.id)).status).toBe(200);
    expect((await admin.get(blockedPath)).body.blocked).toBe(false);
  });

  it("sets a parent back, its sub-issues' summary following", async () => {
    const { admin, p, created } = await setup();
    const parent = await created('Epic');
    const child = await created('Story', { story_points: 5 });
    const path = `${p}/issues/${child.id}`;
    await admin.patch(path, { issue: { parent_id: parent.id } });
    expect((await admin.get(`${p}/issues/${parent.id}`)).body.sub_issues_summary.total).toBe(1);
    const linked = await lastEntry(admin, path, 2);
    const back = await revert(admin, linked.id);
    expect(back.status).toBe(200);
    expect(back.body.parent_id).toBeNull();
    expect((await admin.get(`${p}/issues/${parent.id}`)).body.sub_issues_summary).toMatchObject({ total: 0, story_points: 0 });
  });

  it("takes the issue's ETag in If-Match: 412 when stale, and nothing written", async () => {
    const { admin, p, created } = await setup();
    const issue = await created('Tagged');
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { title: 'Retitled' } });
    const change = await lastEntry(admin, path, 2);
    const stale = (await admin.get(path)).headers.get('etag')!;
    await admin.patch(path, { issue: { story_points: 2 } });
    const refused = await revert(admin, change.id, { 'If-Match': stale });
    expect(refused.status).toBe(412);
    expect((await admin.get(path)).body.title).toBe('Retitled');
    const current = (await admin.get(path)).headers.get('etag')!;
    expect((await revert(admin, change.id, { 'If-Match': current })).status).toBe(200);
  });

  it("answers 404 for another organisation's entry, an unknown one and an id of the old shape", async () => {
    const { admin, p, created } = await setup();
    const other = await orgWithClients(gateway);
    const issue = await created('Mine');
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { title: 'Still mine' } });
    const change = await lastEntry(admin, path, 2);
    const theirs = await revert(other.admin, change.id);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatch(/not found/);
    const sequence = change.id.split('-').at(-1);
    expect((await revert(admin, sequence)).status).toBe(404);
    expect((await revert(admin, `${change.id.split('-')[0]}-${issue.id}-1`)).status).toBe(404);
    expect((await admin.get(path)).body.title).toBe('Still mine');
  });

  it('puts a description back from the text its entry kept, while the text is the one it wrote', async () => {
    const { admin, p, created } = await setup();
    const before = `${'First draft. '.repeat(500)}é ✓`;
    const issue = await created('Described', { description: before });
    const path = `${p}/issues/${issue.id}`;
    await admin.patch(path, { issue: { description: 'Rewritten', title: 'Described again' } });
    const rewrite = await lastEntry(admin, path, 2);
    // The entry says the description changed, without repeating it.
    expect(rewrite.changes).toContainEqual({ field: 'description' });
    const back = await revert(admin, rewrite.id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ description: before, title: 'Described' });
    // The revert's own entry keeps the text it replaced too: reverting it writes the rewrite again.
    const undo = await lastEntry(admin, path, 3);
    expect((await revert(admin, undo.id)).body).toMatchObject({ description: 'Rewritten', title: 'Described again' });
    // Edited since: 409 with the text now.
    await admin.patch(path, { issue: { description: 'Edited again' } });
    await activityOf(admin, path, 5);
    const refused = await revert(admin, rewrite.id);
    expect(refused.status).toBe(409);
    expect(refused.body.changed).toEqual([{ field: 'description', value: 'Edited again' }]);
  });

  it('reverts one item of a bulk update on its own, the others staying', async () => {
    const { admin, p, created } = await setup();
    const [a, b] = [await created('A', { status: 'todo' }), await created('B', { status: 'todo' })];
    const bulk = await admin.post(`${p}/issues/bulk`, {
      items: [
        { id: a.id, issue: { status: 'in_progress', story_points: 2 } },
        { id: b.id, issue: { status: 'in_progress', story_points: 2 } },
      ],
    });
    expect(bulk.body.results.map((r: { status: number }) => r.status)).toEqual([200, 200]);
    const entry = await lastEntry(admin, `${p}/issues/${a.id}`, 2);
    const back = await revert(admin, entry.id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'todo', story_points: null });
    expect((await admin.get(`${p}/issues/${b.id}`)).body).toMatchObject({ status: 'in_progress', story_points: 2 });
  });

  it("answers 422 for a sprint's own entry", async () => {
    const { admin, p, sprint } = await setup();
    expect((await admin.post(`${p}/sprints/${sprint.id}/activate`)).status).toBe(200);
    const activated = await lastEntry(admin, `${p}/sprints/${sprint.id}`, 1);
    expect(activated.id).toMatch(new RegExp(`^${sprint.project_id}-s${sprint.id}-`));
    const refused = await revert(admin, activated.id);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/sprint/);
    expect((await admin.get(`${p}/sprints/${sprint.id}`)).body.status).toBe('active');
  });

  it('answers 422 saying why for a creation, a comment and a reorder', async () => {
    const { admin, p, created } = await setup();
    const issue = await created('Plain');
    await created('Second');
    const path = `${p}/issues/${issue.id}`;
    await admin.post(`${path}/comments`, { comment: { body: 'Hello' } });
    await admin.patch(path, { issue: { position: 2 } });
    const entries = await eventually(
      'three entries',
      async () => (await admin.get(`${path}/activity`)).body as { id: string; event: string; changes: { field: string }[] }[],
      (e) => e.length >= 3,
    );
    const why = async (event: string) => (await revert(admin, entries.find((e) => e.event === event)!.id)).body;
    expect((await why('issue.created')).error).toMatch(/creation/);
    expect((await why('comment.created')).error).toMatch(/comment/);
    const reorder = await revert(admin, entries.find((e) => e.changes.some((c) => c.field === 'position'))!.id);
    expect(reorder.status).toBe(422);
    expect(reorder.body.error).toMatch(/place/);
    expect((await admin.get(path)).body.position).toBe(2);
  });
});

import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { expectHiddenFromOthers, expectTrashedBy, pastRetention } from '../support/trash.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * Labels in the trash end to end (docs/trash.md): a label's delete takes it out of every read at
 * once (its list and count, its issues' answers, the `labels` filter, search) and into the trash;
 * its restore brings back every read exactly as it was before the delete; a purge, or its expiry,
 * takes its id off the issues through the cascade.
 */

const gateway = useGateway();

/** A project with labels `bug` and `ui`, a sprint, and issues carrying them in the sprint and the backlog. */
async function labelledProject(client: ApiClient) {
  const project = await ok(client.post('/api/v1/projects', { project: { name: 'Labels', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const bug = await ok(client.post(`${p}/labels`, { label: { name: 'bug', color: '#d73a4a', description: 'Broken' } }));
  const ui = await ok(client.post(`${p}/labels`, { label: { name: 'ui' } }));
  const sprint = await ok(client.post(`${p}/sprints`, { sprint: { name: 'One' } }));
  const both = await ok(client.post(`${p}/sprints/${sprint.id}/issues`, { issue: { title: 'Both', labels: ['bug', 'ui'] } }));
  const backlog = await ok(client.post(`${p}/issues`, { issue: { title: 'Backlog bug', labels: ['bug'] } }));
  const plain = await ok(client.post(`${p}/issues`, { issue: { title: 'Just ui', labels: ['ui'] } }));
  return { project, p, bug, ui, sprint, issues: [both, backlog, plain] as { id: number; issue_number: string }[] };
}

type Project = Awaited<ReturnType<typeof labelledProject>>;

/** Every read that shows labels, with its body, count and ETag where it has them. */
async function snapshot(client: ApiClient, f: Project) {
  const read = async (path: string) => {
    const res = await client.get(path);
    return { status: res.status, body: res.body, total: res.headers.get('x-total-count'), etag: res.headers.get('etag') };
  };
  const search = async (q: string) => (await read(`/api/v1/issues?q=${encodeURIComponent(q)}`)).body;
  return {
    labels: await read(`${f.p}/labels`),
    label: await read(`${f.p}/labels/${f.bug.id}`),
    issues: await Promise.all(f.issues.map((i) => read(`/api/v1/issues/${i.issue_number}`))),
    sprintIssues: await read(`${f.p}/sprints/${f.sprint.id}/issues`),
    backlog: await read(`${f.p}/issues`),
    filtered: await read(`${f.p}/issues?labels=bug`),
    sprintFiltered: await read(`${f.p}/sprints/${f.sprint.id}/issues?labels=BUG`),
    searched: await search('label:bug'),
    unlabelled: await search('no:label'),
  };
}

const labelIdsOf = async (orgId: number, projectId: number, issueId: number) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(orgId, projectId, issueId) }))).Item?.label_ids as
    Set<number> | undefined;

describe('labels in the trash', () => {
  it('a delete takes a label out of every read, and its restore makes every read as it was', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const f = await labelledProject(admin);
    const before = await snapshot(admin, f);
    expect(before.labels.total).toBe('2');
    expect(before.filtered.body).toHaveLength(1);
    expect(before.sprintFiltered.body).toHaveLength(1);
    expect(before.searched).toHaveLength(2);

    // A member deletes it: it is theirs in the trash.
    expect((await member.delete(`${f.p}/labels/${f.bug.id}`)).status).toBe(204);
    const gone = await snapshot(admin, f);
    expect(gone.label.status).toBe(404);
    expect(gone.labels.body.map((l: { id: number }) => l.id)).toEqual([f.ui.id]);
    expect(gone.labels.total).toBe('1');
    for (const issue of gone.issues) expect(issue.body.labels.map((l: { id: number }) => l.id)).not.toContain(f.bug.id);
    expect(gone.filtered.body).toEqual([]);
    expect(gone.sprintFiltered.body).toEqual([]);
    expect(gone.searched).toEqual([]);
    expect(gone.unlabelled.map((i: { id: number }) => i.id)).toEqual([f.issues[1]!.id]);
    // No write names it any more.
    const refused = await admin.patch(`${f.p}/issues/${f.issues[2]!.id}`, { issue: { labels: ['ui', 'bug'] } });
    expect(refused.status).toBe(422);

    // In the trash: the member sees what they deleted, the admin all of it.
    const entry = { id: `label-${f.bug.id}`, kind: 'label', item_id: f.bug.id, title: 'bug', deleted_by: org.member.id };
    await expectTrashedBy(member, admin, entry, 'webhook');

    const restored = await member.post(`/api/v1/trash/label-${f.bug.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ kind: 'label', item: before.label.body });
    expect(restored.dbCalls).toBeLessThanOrEqual(3);
    expect(await snapshot(admin, f)).toEqual(before);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await member.post(`/api/v1/trash/label-${f.bug.id}/restore`)).status).toBe(404);
  });

  it("shows a member only their own deletions; another organisation's label is 404", async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await labelledProject(admin);
    expect((await admin.delete(`${f.p}/labels/${f.ui.id}`)).status).toBe(204);
    const path = `/api/v1/trash/label-${f.ui.id}`;
    await expectHiddenFromOthers(member, gateway, path);
    expect((await admin.get(`${f.p}/labels/${f.ui.id}`)).status).toBe(404);
  });

  it('refuses with 422 a restore whose name was taken meanwhile or whose project is full, and restores nothing', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await labelledProject(admin);
    expect((await admin.delete(`${f.p}/labels/${f.bug.id}`)).status).toBe(204);
    const taken = await ok(admin.post(`${f.p}/labels`, { label: { name: 'BUG' } }));
    const refused = await admin.post(`/api/v1/trash/label-${f.bug.id}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe(
      `Label ${f.bug.id} cannot come back: project ${f.project.id} has another label named 'bug' now (names are unique ignoring case); rename or delete that one, then restore`,
    );
    expect((await admin.get(`${f.p}/labels/${f.bug.id}`)).status).toBe(404);
    expect((await admin.get(`${f.p}/labels`)).headers.get('x-total-count')).toBe('2');
    expect((await admin.get(`/api/v1/trash/label-${f.bug.id}`)).status).toBe(200);
    // The new label carries none of the old one's issues.
    expect((await admin.get(`${f.p}/issues?labels=bug`)).body).toEqual([]);

    // Renamed out of the way: the project is full meanwhile.
    await ok(admin.patch(`${f.p}/labels/${taken.id}`, { label: { name: 'defect' } }));
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(org.orgId, f.project.id),
        UpdateExpression: 'SET labels_count = :n',
        ExpressionAttributeValues: { ':n': 200 },
      }),
    );
    const full = await admin.post(`/api/v1/trash/label-${f.bug.id}/restore`);
    expect(full.status).toBe(422);
    expect(full.body.error).toMatch(/already has 200 labels/);
    expect((await admin.get(`${f.p}/labels/${f.bug.id}`)).status).toBe(404);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(org.orgId, f.project.id),
        UpdateExpression: 'SET labels_count = :n',
        ExpressionAttributeValues: { ':n': 2 },
      }),
    );
    const back = await admin.post(`/api/v1/trash/label-${f.bug.id}/restore`);
    expect(back.status).toBe(200);
    expect((await admin.get(`/api/v1/issues?q=${encodeURIComponent('label:bug')}`)).body).toHaveLength(2);
  });

  it('comes back on the issues that kept it, not on one whose labels were set meanwhile', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await labelledProject(admin);
    expect((await admin.delete(`${f.p}/labels/${f.bug.id}`)).status).toBe(204);
    const [both, backlog] = f.issues;
    await ok(admin.patch(`${f.p}/issues/${backlog!.id}`, { issue: { labels: ['ui'] } }));
    expect((await admin.post(`/api/v1/trash/label-${f.bug.id}/restore`)).status).toBe(200);
    const found = await admin.get(`/api/v1/issues?q=${encodeURIComponent('label:bug')}`);
    expect(found.body.map((i: { id: number }) => i.id)).toEqual([both!.id]);
    expect((await admin.get(`/api/v1/issues/${backlog!.issue_number}`)).body.labels.map((l: { name: string }) => l.name)).toEqual(
      ['ui'],
    );
  });

  it('a purge takes the id off its issues through the cascade; so does its expiry', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await labelledProject(admin);
    const [both, backlog] = f.issues;
    expect((await admin.delete(`${f.p}/labels/${f.bug.id}`)).status).toBe(204);
    expect((await admin.delete(`${f.p}/labels/${f.ui.id}`)).status).toBe(204);
    // In the trash, the issues keep the ids.
    expect([...((await labelIdsOf(org.orgId, f.project.id, both!.id)) ?? [])].sort()).toEqual([f.bug.id, f.ui.id].sort());

    expect((await admin.delete(`/api/v1/trash/label-${f.bug.id}`)).status).toBe(204);
    await eventually(
      'the purged label to leave its issues',
      async () => [await labelIdsOf(org.orgId, f.project.id, both!.id), await labelIdsOf(org.orgId, f.project.id, backlog!.id)],
      ([a, b]) => !a?.has(f.bug.id) && !b?.has(f.bug.id),
      bounds.cascade(),
    );
    expect([...((await labelIdsOf(org.orgId, f.project.id, both!.id)) ?? [])]).toEqual([f.ui.id]);
    expect((await admin.post(`/api/v1/trash/label-${f.bug.id}/restore`)).status).toBe(404);

    // `ui` past its retention: treated as purged at once, and its TTL delete takes it off its issues.
    const trashKey = keys.trash(org.orgId, keys.label(org.orgId, f.project.id, f.ui.id).SK);
    await pastRetention(trashKey);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/label-${f.ui.id}/restore`)).status).toBe(404);
    // DynamoDB's TTL deletes it some time later (DynamoDB Local never does): the same REMOVE on the stream.
    await db.send(new DeleteCommand({ TableName: tableName(), Key: trashKey }));
    await eventually(
      'the expired label to leave its issues',
      () => labelIdsOf(org.orgId, f.project.id, both!.id),
      (ids) => ids === undefined || ids.size === 0,
      bounds.cascade(),
    );
    expect((await admin.get(`/api/v1/issues/${both!.issue_number}`)).body.labels).toEqual([]);
  });
});

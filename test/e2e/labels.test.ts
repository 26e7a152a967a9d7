import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, projectPk } from '../../lib/db/core/keys.ts';
import { rankDelta } from '../../lib/model/positions.ts';
import { followPages, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf, bounds, eventually } from '../support/eventually.ts';
import { issueItem, putAll, sprintItem, takeIds } from '../support/seed.ts';

const gateway = useGateway();

async function orgWithProject() {
  const { org, admin, member } = await orgWithClients(gateway);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const p = `/api/v1/projects/${project.id}`;
  return { org, admin, member, project, p, labels: `${p}/labels` };
}

const createLabel = async (client: ApiClient, labels: string, label: Record<string, unknown>) => {
  const res = await client.post(labels, { label });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

/** The stored issue items of a project (its sprints' and backlog's lists), read directly. */
async function storedIssues(orgId: number, projectId: number): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const prefix of ['S#', 'B#']) {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'LSI1',
          KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
          ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': prefix },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      found.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
  }
  return found;
}

/** A sprint of `n` issues carrying the given label ids, seeded directly (as the data layer stores them). */
async function seedLabelledSprint(orgId: number, projectId: number, n: number, labelIds: number[]) {
  const [sprintId] = await takeIds(orgId, 'sprint', 1);
  const issueIds = await takeIds(orgId, 'issue', n);
  const rank = rankDelta(Array.from({ length: n }, (_, i) => ({ to: (i + 1) * 1024 })));
  await putAll([
    { ...sprintItem(orgId, projectId, sprintId as number, n), ...rank },
    ...issueIds.map((id, i) => ({
      ...issueItem(orgId, projectId, sprintId as number, id, (i + 1) * 1024),
      label_ids: new Set(labelIds),
    })),
  ]);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.project(orgId, projectId),
      UpdateExpression: 'ADD sprints_count :one',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  return { sprintId: sprintId as number, issueIds };
}

describe('the label catalogue', () => {
  it('creates, reads, lists, renames, recolours and deletes labels', async () => {
    const { admin, member, project, labels } = await orgWithProject();
    const bug = await createLabel(member, labels, { name: '  Bug ', color: '#D73A4A', description: 'Something is broken' });
    expect(bug).toEqual({
      id: expect.any(Number),
      project_id: project.id,
      name: 'Bug',
      color: '#d73a4a',
      description: 'Something is broken',
      created_at: expect.any(String),
      updated_at: bug.created_at,
    });
    const plain = await createLabel(admin, labels, { name: 'chore' });
    expect(plain).toMatchObject({ color: '#6b7280', description: null });

    expect((await admin.get(`${labels}/${bug.id}`)).body).toEqual(bug);
    const listed = await admin.get(`${labels}?per_page=1`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total-count')).toBe('2');
    expect((await followPages(admin, `${labels}?per_page=1`)).items.map((l) => l.name)).toEqual(['Bug', 'chore']);

    const renamed = await member.patch(`${labels}/${bug.id}`, { label: { name: 'defect' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: bug.id, name: 'defect', color: '#d73a4a', description: 'Something is broken' });
    const recoloured = await member.put(`${labels}/${bug.id}`, { label: { color: '#00FF00', description: null } });
    expect(recoloured.body).toMatchObject({ name: 'defect', color: '#00ff00', description: null });
    expect((await admin.get(`${labels}/${bug.id}`)).body).toEqual(recoloured.body);
    // The old name is free again; the new one is taken.
    await createLabel(admin, labels, { name: 'BUG' });
    expect((await admin.post(labels, { label: { name: 'Defect' } })).status).toBe(422);

    expect((await member.delete(`${labels}/${bug.id}`)).status).toBe(204);
    expect((await admin.get(`${labels}/${bug.id}`)).status).toBe(404);
    expect((await admin.get(labels)).headers.get('x-total-count')).toBe('2');
    // Its name is free again once it is gone.
    await createLabel(admin, labels, { name: 'defect' });
  });

  it('refuses invalid labels with a 422 naming each problem, writing nothing', async () => {
    const { admin, labels } = await orgWithProject();
    const bad = await admin.post(labels, { label: { name: ' ', color: 'red', description: 'x'.repeat(1001) } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        "name can't be blank",
        'color must be a colour such as #d73a4a (#rrggbb)',
        'description is too long (maximum is 1000 characters)',
      ]),
    );
    for (const name of ['x'.repeat(51), 'a,b', 7]) {
      const res = await admin.post(labels, { label: { name } });
      expect(res.status, String(name)).toBe(422);
    }
    expect((await admin.post(labels, { label: { name: 'x'.repeat(50) } })).status).toBe(201);
    expect((await admin.post(labels, {})).body.errors).toEqual(['label is required']);
    expect((await admin.get(labels)).headers.get('x-total-count')).toBe('1');
  });

  it('keeps names unique in a project ignoring case, and lets another project use them', async () => {
    const { org, admin, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'Bug' });
    const clash = await admin.post(labels, { label: { name: 'bUG', color: '#000000' } });
    expect(clash.status).toBe(422);
    expect(clash.body.errors[0]).toMatch(/name has already been taken/);
    const other = await createLabel(admin, labels, { name: 'feature' });
    expect((await admin.patch(`${labels}/${other.id}`, { label: { name: 'BUG' } })).status).toBe(422);
    expect((await admin.get(`${labels}/${other.id}`)).body.name).toBe('feature');
    // A change of case of its own name is no clash.
    expect((await admin.patch(`${labels}/${bug.id}`, { label: { name: 'BUG' } })).body.name).toBe('BUG');
    const second = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    await createLabel(admin, `/api/v1/projects/${second.id}/labels`, { name: 'bug' });
    expect((await admin.get(labels)).headers.get('x-total-count')).toBe('2');
    expect(org.orgId).toBeGreaterThan(0);
  });

  it('holds at most 200 labels in a project', async () => {
    const { org, admin, project, labels } = await orgWithProject();
    await createLabel(admin, labels, { name: 'first' });
    // As if 199 more had been created: the count the create's condition reads.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(org.orgId, project.id),
        UpdateExpression: 'SET labels_count = :n',
        ExpressionAttributeValues: { ':n': 200 },
      }),
    );
    const full = await admin.post(labels, { label: { name: 'one too many' } });
    expect(full.status).toBe(422);
    expect(full.body.errors).toEqual(['labels: a project may have at most 200 labels']);
    // Nothing was written: its name is not taken (the guard went with the refused transaction).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(org.orgId, project.id),
        UpdateExpression: 'SET labels_count = :n',
        ExpressionAttributeValues: { ':n': 1 },
      }),
    );
    await createLabel(admin, labels, { name: 'One Too Many' });
  });

  it('answers 404 for a label of another project or organisation, and for a missing project', async () => {
    const { admin, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const stranger = await orgWithClients(gateway);
    expect((await stranger.admin.get(`${labels}/${bug.id}`)).status).toBe(404);
    expect((await stranger.admin.get(labels)).status).toBe(404);
    expect((await stranger.admin.post(labels, { label: { name: 'x' } })).status).toBe(404);
    const second = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    expect((await admin.get(`/api/v1/projects/${second.id}/labels/${bug.id}`)).status).toBe(404);
    expect((await admin.patch(`/api/v1/projects/${second.id}/labels/${bug.id}`, { label: { name: 'y' } })).status).toBe(404);
    expect((await admin.delete(`/api/v1/projects/${second.id}/labels/${bug.id}`)).status).toBe(404);
  });

  it("changes a label's ETag on a rename, and refuses a stale If-Match with 412", async () => {
    const { admin, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const read = await admin.get(`${labels}/${bug.id}`);
    const tag = read.headers.get('etag') ?? '';
    expect(tag).toMatch(/^"1-/);
    const renamed = await admin.patch(`${labels}/${bug.id}`, { label: { name: 'defect' } }, { headers: { 'If-Match': tag } });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('etag')).not.toBe(tag);
    const stale = await admin.patch(`${labels}/${bug.id}`, { label: { name: 'again' } }, { headers: { 'If-Match': tag } });
    expect(stale.status).toBe(412);
    expect((await admin.get(`${labels}/${bug.id}`)).body.name).toBe('defect');
  });

  it("changes an issue's answer but not its version on a rename: a cached copy is fresh again, If-Match still holds", async () => {
    const { admin, p, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const issue = (await admin.post(`${p}/issues`, { issue: { title: 'T', labels: ['bug'] } })).body;
    const path = `${p}/issues/${issue.id}`;
    const before = await admin.get(path);
    const tag = before.headers.get('etag') ?? '';
    expect((await admin.patch(`${labels}/${bug.id}`, { label: { name: 'defect' } })).status).toBe(200);
    const after = await admin.get(path, { headers: { 'If-None-Match': tag } });
    expect(after.status).toBe(200);
    expect(after.body.labels[0].name).toBe('defect');
    // The same version of the issue: its tag's version part is unchanged, and If-Match with the old tag writes.
    expect(after.headers.get('etag')?.split('-')[0]).toBe(tag.split('-')[0]);
    expect((await admin.patch(path, { issue: { title: 'U' } }, { headers: { 'If-Match': tag } })).status).toBe(200);
  });
});

describe('labels on issues', () => {
  it('sets labels by name (any case) or id on create and update, answered in the catalogue spelling', async () => {
    const { admin, p, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'Bug', color: '#d73a4a' });
    const ui = await createLabel(admin, labels, { name: 'frontend', color: '#0000ff' });
    const created = await admin.post(`${p}/issues`, { issue: { title: 'Login fails', labels: ['bug', ui.id, 'BUG'] } });
    expect(created.status).toBe(201);
    const shown = [
      { id: bug.id, name: 'Bug', color: '#d73a4a' },
      { id: ui.id, name: 'frontend', color: '#0000ff' },
    ];
    expect(created.body.labels).toEqual(shown);
    expect((await admin.get(`${p}/issues/${created.body.id}`)).body.labels).toEqual(shown);
    expect((await admin.get(`/api/v1/issues/${created.body.issue_number}`)).body.labels).toEqual(shown);
    expect((await admin.get(`${p}/issues`)).body[0].labels).toEqual(shown);

    const sprint = (await admin.post(`${p}/sprints`, { sprint: { name: 'S1' } })).body;
    const inSprint = await admin.post(`${p}/sprints/${sprint.id}/issues`, { issue: { title: 'Styles', labels: ['Frontend'] } });
    expect(inSprint.body.labels).toEqual([shown[1]]);
    const patched = await admin.patch(`${p}/sprints/${sprint.id}/issues/${inSprint.body.id}`, { issue: { labels: [bug.id] } });
    expect(patched.status).toBe(200);
    expect(patched.body.labels).toEqual([shown[0]]);
    const cleared = await admin.put(`${p}/sprints/${sprint.id}/issues/${inSprint.body.id}`, { issue: { labels: [] } });
    expect(cleared.body.labels).toEqual([]);
    expect((await admin.get(`${p}/sprints/${sprint.id}/issues/${inSprint.body.id}`)).body.labels).toEqual([]);
    // Without labels, an update keeps them.
    const kept = await admin.patch(`${p}/issues/${created.body.id}`, { issue: { title: 'Login fails on Safari' } });
    expect(kept.body.labels).toEqual(shown);
    // Moving to a sprint keeps them too.
    const moved = await admin.patch(`${p}/issues/${created.body.id}`, { issue: { sprint_id: sprint.id } });
    expect(moved.body.labels).toEqual(shown);
  });

  it('refuses an unknown label with a 422 naming it and writes nothing', async () => {
    const { org, admin, p, project, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const refused = await admin.post(`${p}/issues`, { issue: { title: 'Nope', labels: ['bug', 'wontfix', 999999999] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual(["labels: unknown label 'wontfix', 999999999 (not in this project's catalogue)"]);
    expect((await admin.get(`${p}/issues`)).headers.get('x-total-count')).toBe('0');
    expect(await storedIssues(org.orgId, project.id)).toEqual([]);
    // The number was given back: the next issue is the first.
    const first = await admin.post(`${p}/issues`, { issue: { title: 'Yes', labels: ['bug'] } });
    expect(first.body.issue_number).toMatch(/-1$/);

    const update = await admin.patch(`${p}/issues/${first.body.id}`, { issue: { title: 'Changed', labels: ['nope'] } });
    expect(update.status).toBe(422);
    expect(update.body.errors[0]).toContain("'nope'");
    const after = await admin.get(`${p}/issues/${first.body.id}`);
    expect(after.body).toMatchObject({ title: 'Yes', labels: [{ id: bug.id, name: 'bug' }] });

    // Another project's label is unknown here.
    const other = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const foreign = await createLabel(admin, `/api/v1/projects/${other.id}/labels`, { name: 'foreign' });
    expect((await admin.patch(`${p}/issues/${first.body.id}`, { issue: { labels: [foreign.id] } })).status).toBe(422);
  });

  it('validates the labels field: an array of at most 20 names or ids', async () => {
    const { admin, p } = await orgWithProject();
    for (const labels of ['bug', [true], [''], Array.from({ length: 21 }, (_, i) => `l${i}`), [0], ['x'.repeat(51)]]) {
      const res = await admin.post(`${p}/issues`, { issue: { title: 'T', labels } });
      expect(res.status, JSON.stringify(labels)).toBe(422);
      expect(res.body.errors.join(), JSON.stringify(labels)).toMatch(/^labels/);
    }
    expect((await admin.get(`${p}/issues`)).headers.get('x-total-count')).toBe('0');
  });

  it('hides a deleted label from every issue at once', async () => {
    const { admin, p, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const ui = await createLabel(admin, labels, { name: 'ui' });
    const issue = (await admin.post(`${p}/issues`, { issue: { title: 'T', labels: ['bug', 'ui'] } })).body;
    expect((await admin.delete(`${labels}/${bug.id}`)).status).toBe(204);
    expect((await admin.get(`${p}/issues/${issue.id}`)).body.labels).toEqual([{ id: ui.id, name: 'ui', color: '#6b7280' }]);
    expect((await admin.get(`${p}/issues?labels=bug`)).body).toEqual([]);
    expect((await admin.patch(`${p}/issues/${issue.id}`, { issue: { labels: [bug.id] } })).status).toBe(422);
  });
});

describe('labels in the activity history', () => {
  it('records labels added and removed by id, and nothing when a label purge takes one off', async () => {
    const { org, admin, project, p, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug' });
    const ui = await createLabel(admin, labels, { name: 'ui' });
    const issue = (await admin.post(`${p}/issues`, { issue: { title: 'T', labels: ['bug'] } })).body;
    const path = `${p}/issues/${issue.id}`;
    expect((await admin.patch(path, { issue: { labels: ['ui', 'bug'] } })).status).toBe(200);
    expect((await admin.patch(path, { issue: { labels: ['ui'] } })).status).toBe(200);
    expect((await admin.delete(`${labels}/${ui.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/label-${ui.id}`)).status).toBe(204);
    // The purged label's cascade takes it off the stored issue; a change after that, in the same partition
    // (the change feed keeps a partition's records in order), shows the feed has passed the cascade's.
    await eventually(
      'the label cascade to take the label off the issue',
      () => storedIssues(org.orgId, project.id),
      (items) => items.every((i) => !(i.label_ids as Set<number> | undefined)?.has(ui.id)),
      bounds.cascade(),
    );
    expect((await admin.patch(path, { issue: { title: 'After' } })).status).toBe(200);
    const entries = await activityOf<{ event: string; changes: unknown[] }>(admin, path, 4);
    const [low, high] = [Math.min(bug.id, ui.id), Math.max(bug.id, ui.id)];
    expect(entries.map((e) => e.event)).toEqual(['issue.created', 'issue.updated', 'issue.updated', 'issue.updated']);
    expect(entries[1]?.changes).toEqual([{ field: 'labels', from: [bug.id], to: [low, high], added: [ui.id], removed: [] }]);
    expect(entries[2]?.changes).toEqual([{ field: 'labels', from: [low, high], to: [ui.id], added: [], removed: [bug.id] }]);
    expect(entries[3]?.changes).toEqual([{ field: 'title', from: 'T', to: 'After' }]);
  });
});

describe('the labels filter', () => {
  it('keeps the issues carrying every label named, ANDed with the other filters', async () => {
    const { admin, p, labels } = await orgWithProject();
    await createLabel(admin, labels, { name: 'Bug' });
    await createLabel(admin, labels, { name: 'frontend' });
    const make = (title: string, issueLabels: string[], status = 'backlog') =>
      admin.post(`${p}/issues`, { issue: { title, labels: issueLabels, status } }).then((r) => r.body);
    const both = await make('both', ['bug', 'frontend']);
    const onlyBug = await make('only bug', ['bug'], 'todo');
    await make('only ui', ['frontend']);
    await make('none', []);
    const bothTodo = await make('both, todo', ['bug', 'frontend'], 'todo');

    const titles = async (query: string) => {
      const res = await admin.get(`${p}/issues?${query}`);
      expect(res.status, query).toBe(200);
      return { titles: res.body.map((i: { title: string }) => i.title), res };
    };
    expect((await titles('labels=bug')).titles).toEqual(['both', 'only bug', 'both, todo']);
    expect((await titles('labels=BUG,Frontend')).titles).toEqual(['both', 'both, todo']);
    expect((await titles('labels=%20bug%20,frontend')).titles).toEqual(['both', 'both, todo']);
    const combined = await titles('labels=bug&status=todo');
    expect(combined.titles).toEqual(['only bug', 'both, todo']);
    // `position` stays the place in the whole list, and the total counts the matches.
    expect(combined.res.body.map((i: { position: number }) => i.position)).toEqual([2, 5]);
    expect(combined.res.headers.get('x-total-count')).toBe('2');
    expect((await titles('labels=bug,frontend&q=todo')).titles).toEqual(['both, todo']);
    // An unknown name: nothing matches, and that is no error.
    const unknown = await titles('labels=bug,wontfix');
    expect(unknown.titles).toEqual([]);
    expect(unknown.res.headers.get('x-total-count')).toBe('0');
    expect([both.id, onlyBug.id, bothTodo.id]).toHaveLength(3);
  });

  it('pages through filtered matches with next links', async () => {
    const { admin, p, labels } = await orgWithProject();
    await createLabel(admin, labels, { name: 'bug' });
    for (let i = 1; i <= 5; i++) await admin.post(`${p}/issues`, { issue: { title: `I${i}`, labels: i % 2 ? ['bug'] : [] } });
    const { items, total, pages } = await followPages(admin, `${p}/issues?labels=bug&per_page=2`);
    expect(items.map((i) => i.title)).toEqual(['I1', 'I3', 'I5']);
    expect(items.map((i) => i.position)).toEqual([1, 3, 5]);
    expect(total).toBe(3);
    expect(pages).toBe(2);
    expect((await admin.get(`${p}/issues?labels=bug&per_page=2`)).headers.get('link')).toContain('labels=bug');
  });

  it("filters the caller's issues across projects, each name looked up in the issue's own project", async () => {
    const { org, admin, p, labels } = await orgWithProject();
    const other = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const q = `/api/v1/projects/${other.id}`;
    await createLabel(admin, labels, { name: 'bug' });
    await createLabel(admin, labels, { name: 'ui' });
    // The same name in another project is another label, and matches there too.
    await createLabel(admin, `${q}/labels`, { name: 'BUG' });
    const mine = { assignee_id: org.admin.id };
    const make = (at: string, title: string, issueLabels: string[], status = 'backlog') =>
      admin.post(`${at}/issues`, { issue: { title, labels: issueLabels, status, ...mine } }).then((r) => r.body);
    await make(p, 'p bug', ['bug']);
    await make(p, 'p bug ui', ['bug', 'ui'], 'in_progress');
    await make(p, 'p ui', ['ui']);
    await make(q, 'q bug', ['bug'], 'in_progress');
    await admin.post(`${p}/issues`, { issue: { title: 'not mine', labels: ['bug'] } });

    const titles = async (query: string) => {
      const { items, total } = await followPages(admin, `/api/v1/me/issues?${query}`);
      return { titles: items.map((i: { title: string }) => i.title).sort(), total };
    };
    expect(await titles('labels=bug')).toEqual({ titles: ['p bug', 'p bug ui', 'q bug'], total: 3 });
    expect(await titles('labels=bug&per_page=1')).toEqual({ titles: ['p bug', 'p bug ui', 'q bug'], total: 3 });
    expect(await titles('labels=bug,UI')).toEqual({ titles: ['p bug ui'], total: 1 });
    expect(await titles('labels=bug&status=in_progress')).toEqual({ titles: ['p bug ui', 'q bug'], total: 2 });
    expect(await titles('labels=nope')).toEqual({ titles: [], total: 0 });
    const page = await admin.get('/api/v1/me/issues?labels=bug&per_page=1');
    expect(page.body[0].labels[0]).toMatchObject({ name: expect.stringMatching(/^bug$/i) });
    expect(page.headers.get('link')).toContain('labels=bug');
    expect((await admin.get('/api/v1/me/issues?labels=bug&page=2')).status).toBe(422);
  });

  it('refuses hostile values with a 422 naming the parameter', async () => {
    const { admin, p } = await orgWithProject();
    const hostile = [
      '',
      ',',
      ',,,,',
      'bug,,ui',
      'bug,',
      '%20',
      'x'.repeat(51),
      Array.from({ length: 21 }, (_, i) => `l${i}`).join(','),
      'a'.repeat(5000),
      ','.repeat(3000),
    ];
    for (const value of hostile) {
      for (const list of [`${p}/issues`, '/api/v1/me/issues']) {
        const res = await admin.get(`${list}?labels=${value}`);
        expect(res.status, `${list} ${value.slice(0, 40)}`).toBe(422);
        expect(res.body.errors.join(), value.slice(0, 40)).toMatch(/^labels /);
      }
    }
  });
});

describe('labels at scale', () => {
  /** Three pages of a hundred, and cascade batches of several, without a thousand issues' writes. */
  const ISSUES = 300;

  it('a rename shows on 300 issues with no issue rewritten; a delete hides it, a restore shows it again, a purge empties it through the cascade', async () => {
    const { org, admin, project, p, labels } = await orgWithProject();
    const bug = await createLabel(admin, labels, { name: 'bug', color: '#d73a4a' });
    const keep = await createLabel(admin, labels, { name: 'keep' });
    const { sprintId } = await seedLabelledSprint(org.orgId, project.id, ISSUES, [bug.id, keep.id]);
    const list = `${p}/sprints/${sprintId}/issues`;

    const filtered = await followPages(admin, `${list}?labels=bug&per_page=100`);
    expect(filtered.items).toHaveLength(ISSUES);
    expect(filtered.total).toBe(ISSUES);

    const before = await storedIssues(org.orgId, project.id);
    expect(before).toHaveLength(ISSUES);
    const renamed = await admin.patch(`${labels}/${bug.id}`, { label: { name: 'defect', color: '#ff0000' } });
    expect(renamed.status).toBe(200);
    // The rename is one label write: the authorizer, the read, one transaction.
    expect(renamed.dbCalls).toBeLessThanOrEqual(3);
    // No issue item was written: every one is byte for byte as before.
    expect(await storedIssues(org.orgId, project.id)).toEqual(before);
    const shown = await followPages(admin, `${list}?per_page=100`);
    expect(shown.items).toHaveLength(ISSUES);
    for (const issue of shown.items) {
      expect(issue.labels).toEqual([
        { id: bug.id, name: 'defect', color: '#ff0000' },
        { id: keep.id, name: 'keep', color: '#6b7280' },
      ]);
    }
    expect((await followPages(admin, `${list}?labels=DEFECT&per_page=100`)).items).toHaveLength(ISSUES);
    expect((await admin.get(`${list}?labels=bug`)).body).toEqual([]);

    const renamedIssues = await storedIssues(org.orgId, project.id);
    expect((await admin.delete(`${labels}/${bug.id}`)).status).toBe(204);
    // Gone from every answer at once, with no issue written (they keep its id while it is in the trash).
    const page = await admin.get(`${list}?per_page=100`);
    expect(page.body.every((i: { labels: { id: number }[] }) => i.labels.length === 1 && i.labels[0]?.id === keep.id)).toBe(true);
    expect(await storedIssues(org.orgId, project.id)).toEqual(renamedIssues);
    // A restore is one transaction, whatever the number of issues: all 300 show it again at once.
    const restored = await admin.post(`/api/v1/trash/label-${bug.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.dbCalls).toBeLessThanOrEqual(3);
    expect((await followPages(admin, `${list}?labels=defect&per_page=100`)).items).toHaveLength(ISSUES);
    expect(await storedIssues(org.orgId, project.id)).toEqual(renamedIssues);

    // Deleted again and purged: the cascade takes it off every issue.
    expect((await admin.delete(`${labels}/${bug.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/label-${bug.id}`)).status).toBe(204);

    await eventually(
      'the label cascade to take the label off 300 issues',
      () => storedIssues(org.orgId, project.id),
      (items) => items.every((i) => !(i.label_ids as Set<number> | undefined)?.has(bug.id)),
      bounds.cascade(ISSUES),
    );
    const after = await storedIssues(org.orgId, project.id);
    expect(after).toHaveLength(ISSUES);
    // Only the label went: the other label, the revision and the update time are as they were.
    for (const issue of after) {
      expect([...(issue.label_ids as Set<number>)]).toEqual([keep.id]);
      const was = before.find((b) => b.SK === issue.SK) as Record<string, unknown>;
      expect(issue.updated_at).toBe(was.updated_at);
      expect(issue.version).toBe(was.version);
    }
  }, 120_000);
});

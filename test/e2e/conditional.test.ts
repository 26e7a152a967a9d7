import { afterAll, describe, expect, it } from 'vitest';
import { INTERVAL_MS } from '../../lib/model/ratelimit.ts';
import { routes } from '../../lib/routes.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient, type ApiResponse } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';
import { activityOf } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * ETags and conditional requests through the local gateway: `If-None-Match` on every GET (304),
 * `If-Match` on every conditional write (412, nothing written), checked by the write itself.
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A project with a planning sprint, an active sprint, an issue in each list, a comment and a webhook. */
async function fixture(admin: ApiClient) {
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  const planning = (await admin.post(`${projectPath}/sprints`, { sprint: { name: 'Next' } })).body;
  const active = (await admin.post(`${projectPath}/sprints`, { sprint: { name: 'Now' } })).body;
  const sprintPath = `${projectPath}/sprints/${planning.id}`;
  const activePath = `${projectPath}/sprints/${active.id}`;
  expect((await admin.post(`${activePath}/activate`)).status).toBe(200);
  const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Land', story_points: 3 } })).body;
  const backlogIssue = (await admin.post(`${projectPath}/issues`, { issue: { title: 'Later' } })).body;
  const issuePath = `${sprintPath}/issues/${issue.id}`;
  const comment = (await admin.post(`${issuePath}/comments`, { comment: { body: 'Hello' } })).body;
  const receiver = await startReceiver();
  receivers.push(receiver);
  const webhook = (await admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['sprint.completed'] } })).body;
  expect(webhook.id, 'fixture webhook').toBeTypeOf('number');
  // A webhook deleted into the trash: its purge names the trashed item's ETag.
  const doomed = (await admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['sprint.completed'] } })).body;
  expect((await admin.delete(`/api/v1/webhooks/${doomed.id}`)).status, 'fixture trash').toBe(204);
  const label = (await admin.post(`${projectPath}/labels`, { label: { name: 'bug' } })).body;
  const state = (await admin.post(`${projectPath}/states`, { state: { name: 'In review', category: 'in_progress' } })).body;
  const field = (await admin.post(`${projectPath}/fields`, { field: { name: 'Severity', type: 'text' } })).body;
  const relation = (
    await admin.post(`/api/v1/issues/${issue.issue_number}/relations`, {
      relation: { type: 'relates_to', issue_key: backlogIssue.issue_number },
    })
  ).body;
  const ids: Record<string, number> = {
    label_id: label.id,
    state_id: state.id,
    field_id: field.id,
    project_id: project.id,
    sprint_id: planning.id,
    issue_id: issue.id,
    id: comment.id,
    webhook_id: webhook.id,
  };
  // A relation is named by its issue's key; If-Match names that issue's ETag.
  const attachment = (
    await admin.post(`/api/v1/issues/${issue.issue_number}/attachments`, {
      attachment: { name: 'a.txt', content_type: 'text/plain', size: 5 },
    })
  ).body;
  // A change of the backlog issue, to revert; If-Match on a revert names its issue's ETag.
  const backlogIssuePath = `${projectPath}/issues/${backlogIssue.id}`;
  expect((await admin.patch(backlogIssuePath, { issue: { story_points: 2 } })).status).toBe(200);
  const change = (await activityOf(admin, backlogIssuePath, 2))[1];
  // An attachment too; If-Match on its delete names its issue's ETag.
  const names: Record<string, string> = {
    issue_key: issue.issue_number,
    relation_id: relation.id,
    attachment_id: String(attachment.id),
    activity_id: change.id,
    trash_id: `webhook-${doomed.id}`,
  };
  return {
    ids,
    names,
    projectPath,
    sprintPath,
    activePath,
    issuePath,
    backlogIssuePath,
    commentPath: `/api/v1/comments/${comment.id}`,
    webhookPath: `/api/v1/webhooks/${webhook.id}`,
    labelPath: `${projectPath}/labels/${label.id}`,
    statePath: `${projectPath}/states/${state.id}`,
  };
}

/** A path of the route table with the fixture's ids in it (the backlog's issue where the path is the backlog's). */
function pathOf(template: string, f: Awaited<ReturnType<typeof fixture>>, backlogIssueId: number, activeId: number) {
  const isBacklogIssue = template.includes('/issues/{issue_id}') && !template.includes('/sprints/');
  const isTransition = /\/(complete|completion)$/.test(template);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'issue_id' && isBacklogIssue) return String(backlogIssueId);
    if (name === 'sprint_id' && isTransition) return String(activeId);
    return String(f.ids[name] ?? f.names[name]);
  });
}

/** A valid body for a conditional write of each kind (so that only its precondition can refuse it). */
function bodyOf(path: string): unknown {
  if (path === '/api/v1/organisation') return { organisation: { trash_retention_days: 9 } };
  if (path.startsWith('/api/v1/comments')) return { comment: { body: 'changed' } };
  if (path.startsWith('/api/v1/webhooks')) return { webhook: { active: true } };
  if (path.includes('/labels/')) return { label: { name: 'changed' } };
  if (path.includes('/states/')) return { state: { name: 'changed' } };
  if (path.includes('/fields/')) return { field: { name: 'changed' } };
  if (path.includes('/issues/')) return { issue: { title: 'Changed' } };
  if (/\/(activate|activation|complete|completion)$/.test(path)) return undefined;
  if (path.includes('/sprints/')) return { sprint: { name: 'Changed' } };
  return { project: { name: 'Changed' } };
}

/** The GET that shows what a conditional write changes: its own path, the sprint of a transition, a relation's issue. */
const readPathOf = (path: string) =>
  path
    .replace(/\/(activate|activation|complete|completion)$/, '')
    .replace(/\/relations\/[^/]+$/, '')
    .replace(/\/attachments\/[^/]+$/, '');

const etag = (res: ApiResponse) => res.headers.get('etag') ?? '';

describe('ETags and If-None-Match', () => {
  it('answers 304 with no body and the same headers for every kind of resource and list, and 200 once it changed', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const reads = [
      '/api/v1/me',
      '/api/v1/organisation',
      '/api/v1/projects',
      f.projectPath,
      `${f.projectPath}/sprints`,
      f.sprintPath,
      `${f.sprintPath}/issues`,
      f.issuePath,
      `${f.projectPath}/issues`,
      f.backlogIssuePath,
      `${f.issuePath}/comments`,
      f.commentPath,
      '/api/v1/webhooks',
      f.webhookPath,
      `${f.projectPath}/labels`,
      f.labelPath,
      `${f.projectPath}/states`,
      f.statePath,
    ];
    for (const path of reads) {
      const first = await admin.get(path);
      expect(first.status, path).toBe(200);
      expect(etag(first), path).toMatch(/^"[\w-]+"$/);
      const again = await admin.get(path, { headers: { 'If-None-Match': etag(first) } });
      expect(again.status, path).toBe(304);
      expect(again.text, path).toBe('');
      expect(etag(again), path).toBe(etag(first));
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-total-count', 'link']) {
        expect(again.headers.get(name) !== null, `${path} ${name}`).toBe(first.headers.get(name) !== null);
      }
      // Another tag (or a weak copy of this one) in the list: still a match; an unknown one alone is not.
      const listed = await admin.get(path, { headers: { 'If-None-Match': `"nope", W/${etag(first)}` } });
      expect(listed.status, path).toBe(304);
      expect((await admin.get(path, { headers: { 'If-None-Match': '"nope"' } })).status, path).toBe(200);
    }

    const before = await admin.get(f.issuePath);
    expect((await admin.patch(f.issuePath, { issue: { title: 'Renamed' } })).status).toBe(200);
    const after = await admin.get(f.issuePath, { headers: { 'If-None-Match': etag(before) } });
    expect(after.status).toBe(200);
    expect(after.body.title).toBe('Renamed');
    expect(etag(after)).not.toBe(etag(before));
  }, 60_000);

  it("gives a write's answer the ETag the next read gives, for each kind of resource", async () => {
    const { admin } = await orgWithClients(gateway);
    // creates: the answer is the resource at its first version
    const project = await admin.post('/api/v1/projects', { project: { name: 'Fresh', prefix: randomPrefix() } });
    const projectPath = `/api/v1/projects/${project.body.id}`;
    expect(etag(project)).toBe(etag(await admin.get(projectPath)));
    const sprint = await admin.post(`${projectPath}/sprints`, { sprint: { name: 'Fresh' } });
    const sprintPath = `${projectPath}/sprints/${sprint.body.id}`;
    expect(etag(sprint)).toBe(etag(await admin.get(sprintPath)));
    const issue = await admin.post(`${projectPath}/issues`, { issue: { title: 'Fresh' } });
    const issuePath = `${projectPath}/issues/${issue.body.id}`;
    expect(etag(issue)).toBe(etag(await admin.get(issuePath)));
    const comment = await admin.post(`${issuePath}/comments`, { comment: { body: 'Fresh' } });
    expect(etag(comment)).toBe(etag(await admin.get(`/api/v1/comments/${comment.body.id}`)));
    for (const created of [project, sprint, issue, comment]) expect(etag(created)).toMatch(/^"1-/);
    // updates
    const f = await fixture(admin);
    for (const path of [f.projectPath, f.sprintPath, f.issuePath, f.backlogIssuePath, f.commentPath, f.webhookPath]) {
      const written = await admin.patch(path, bodyOf(path));
      expect(written.status, path).toBe(200);
      const read = await admin.get(path);
      expect(etag(written), path).toBe(etag(read));
      expect((await admin.get(path, { headers: { 'If-None-Match': etag(written) } })).status, path).toBe(304);
    }
  });

  it("changes a parent's ETag when a child's write changes the counters it shows", async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const sprint = await admin.get(f.sprintPath);
    const project = await admin.get(f.projectPath);

    expect((await admin.post(`${f.sprintPath}/issues`, { issue: { title: 'More', story_points: 5 } })).status).toBe(201);
    const sprintAfter = await admin.get(f.sprintPath, { headers: { 'If-None-Match': etag(sprint) } });
    expect(sprintAfter.status).toBe(200);
    expect(sprintAfter.body.total_story_points).toBe(sprint.body.total_story_points + 5);

    expect((await admin.post(`${f.projectPath}/sprints`, { sprint: { name: 'Later' } })).status).toBe(201);
    const projectAfter = await admin.get(f.projectPath, { headers: { 'If-None-Match': etag(project) } });
    expect(projectAfter.status).toBe(200);
    expect(projectAfter.body.sprints_count).toBe(project.body.sprints_count + 1);

    // and a child's field change that moves the counters (done: completed points)
    const current = await admin.get(f.sprintPath);
    expect((await admin.patch(f.issuePath, { issue: { status: 'done' } })).status).toBe(200);
    expect((await admin.get(f.sprintPath, { headers: { 'If-None-Match': etag(current) } })).status).toBe(200);
  });

  it('counts a 304 against the rate limit like any request, and spends the same DynamoDB calls as a full read', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    // From before the full read: its remaining count was taken when the refill clock was earlier.
    const started = Date.now();
    const full = await admin.get(f.sprintPath);
    // One after another: concurrent requests of one token may meet on its bucket, and a conditional
    // update that loses the race reads again (test/integration/ratelimit.test.ts), one call more.
    const notModified = [];
    for (let i = 0; i < 60; i++) notModified.push(await admin.get(f.sprintPath, { headers: { 'If-None-Match': etag(full) } }));
    const after = await admin.get(f.sprintPath);
    const refilled = Math.floor((Date.now() - started) / INTERVAL_MS) + 1;
    expect(notModified.every((res) => res.status === 304)).toBe(true);
    const before = Number(full.headers.get('x-ratelimit-remaining'));
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(before - 61 + refilled);
    for (const res of notModified) expect(res.dbCalls).toBe(full.dbCalls);
  });
});

describe('If-Match', () => {
  it('prevents a lost update: of two clients that read the same ETag, the second write is 412 and changes nothing', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const seenByAdmin = await admin.get(f.issuePath);
    const seenByMember = await member.get(f.issuePath);
    expect(etag(seenByMember)).toBe(etag(seenByAdmin));

    const first = await admin.patch(f.issuePath, { issue: { title: 'Admin' } }, { headers: { 'If-Match': etag(seenByAdmin) } });
    expect(first.status).toBe(200);
    const second = await member.patch(
      f.issuePath,
      { issue: { title: 'Member', story_points: 8 } },
      { headers: { 'If-Match': etag(seenByMember) } },
    );
    expect(second.status).toBe(412);
    expect(second.body).toEqual({ error: expect.any(String) });

    const now = await admin.get(f.issuePath);
    expect(now.body).toMatchObject({ title: 'Admin', story_points: 3 });
    expect(etag(now)).toBe(etag(first));
    // read again, then write: applied
    const retried = await member.patch(f.issuePath, { issue: { title: 'Member' } }, { headers: { 'If-Match': etag(now) } });
    expect(retried.status).toBe(200);
    expect(retried.body.title).toBe('Member');
  });

  it('takes `*` as "exists", a list of tags as "any of them", and refuses a tag it never issued', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const current = await admin.get(f.projectPath);
    expect((await admin.patch(f.projectPath, { project: { name: 'Star' } }, { headers: { 'If-Match': '*' } })).status).toBe(200);
    const listed = await admin.patch(
      f.projectPath,
      { project: { name: 'Listed' } },
      { headers: { 'If-Match': `${etag(current)}, ${etag(await admin.get(f.projectPath))}` } },
    );
    expect(listed.status).toBe(200);
    const version = Number(/^"(\d+)-/.exec(etag(await admin.get(f.projectPath)))?.[1]);
    for (const tag of ['"garbage"', `"${version}"`, `"${version + 1}-x"`]) {
      const res = await admin.patch(f.projectPath, { project: { name: 'Never' } }, { headers: { 'If-Match': tag } });
      expect(res.status, tag).toBe(412);
    }
    expect((await admin.get(f.projectPath)).body.name).toBe('Listed');
  });

  it('answers 412 and writes nothing on every conditional route of the route table, given a stale ETag', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const backlogIssueId = Number(f.backlogIssuePath.split('/').pop());
    const activeId = Number(f.activePath.split('/').pop());
    const conditional = routes.filter((r) => r.operation.conditional);
    expect(conditional.length).toBeGreaterThan(0);
    for (const route of conditional) {
      const path = pathOf(route.path, f, backlogIssueId, activeId);
      // A revert writes the issue its entry is of.
      const readPath = route.path.startsWith('/api/v1/activity/') ? f.backlogIssuePath : readPathOf(path);
      const before = await admin.get(readPath);
      expect(before.status, `${route.method} ${route.path}: GET first`).toBe(200);
      const version = Number(/^"(\d+)-/.exec(etag(before))?.[1]);
      const stale = `"${version + 7}-stale"`;
      const body = bodyOf(path);
      const res = await admin.request(route.method, path, {
        headers: { 'If-Match': stale },
        ...(body === undefined ? {} : { json: body }),
      });
      expect(`${route.method} ${route.path}: ${res.status}`).toBe(`${route.method} ${route.path}: 412`);
      expect(res.body).toEqual({ error: expect.any(String) });
      const after = await admin.get(readPath, { headers: { 'If-None-Match': etag(before) } });
      expect(`${route.method} ${route.path}: then ${after.status}`).toBe(`${route.method} ${route.path}: then 304`);
    }
  });
});

describe('expected_version (MCP)', () => {
  it('writes through a tool only at the expected version, the one its results and the ETag carry', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const f = await fixture(admin);
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const issueId = f.ids.issue_id!;
    const projectId = f.ids.project_id!;
    const read = await mcp.ok('get_issue', { project_id: projectId, issue_id: issueId });
    expect(read.version).toBeTypeOf('number');
    expect(etag(await admin.get(f.issuePath))).toMatch(new RegExp(`^"${read.version}-`));

    const stale = await mcp.call('update_issue', {
      project_id: projectId,
      issue_id: issueId,
      title: 'Stale',
      expected_version: read.version + 1,
    });
    expect(stale.result.isError).toBe(true);
    expect(stale.text).toMatch(/changed/);
    expect((await admin.get(f.issuePath)).body.title).toBe('Land');

    const written = await mcp.ok('update_issue', {
      project_id: projectId,
      issue_id: issueId,
      title: 'Current',
      expected_version: read.version,
    });
    expect(written.issue.title).toBe('Current');
    expect(written.version).toBe(read.version + 1);
    const deleted = await mcp.call('delete_issue', { project_id: projectId, issue_id: issueId, expected_version: read.version });
    expect(deleted.result.isError).toBe(true);
    expect((await admin.get(f.issuePath)).status).toBe(200);
  });
});

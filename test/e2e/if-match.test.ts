import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, type Key } from '../../lib/db/core/keys.ts';
import { routes } from '../../lib/routes.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient, type ApiResponse } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { mcpClient } from '../support/mcp.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * `If-Match` compares whole tags, strongly, on every conditional route of the route table: a tag
 * at version 0 (an item written before versions existed) works like any other; a weak tag, a forged
 * digest, a malformed tag are 412 with nothing written; a list passes when one of its tags is valid
 * and current. Never a 5xx.
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const etag = (res: ApiResponse) => res.headers.get('etag') ?? '';
const VERSION_TAG = /^"(\d+)-[\w-]{22}"$/;

/** Makes the item look written before versions existed: no `version` attribute. */
async function unversion(...items: Key[]) {
  for (const Key of items) {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'REMOVE #v',
        ExpressionAttributeNames: { '#v': 'version' },
      }),
    );
  }
}

type Target = { path: string; readPath: string; items: Key[] };

/**
 * What one conditional route writes, made for it alone in a fresh organisation: its path, the GET
 * that shows the resource, and the items that hold it (to strip of their version).
 */
async function targetOf(template: string, admin: ApiClient, orgId: number): Promise<Target> {
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  if (template.startsWith('/api/v1/webhooks')) {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const webhook = (await admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['sprint.completed'] } })).body;
    const path = `/api/v1/webhooks/${webhook.id}`;
    return { path, readPath: path, items: [keys.webhook(orgId, webhook.id)] };
  }
  if (template.includes('{label_id}')) {
    const label = (await admin.post(`${projectPath}/labels`, { label: { name: 'bug', color: '#d73a4a' } })).body;
    const path = `${projectPath}/labels/${label.id}`;
    return { path, readPath: path, items: [keys.label(orgId, project.id, label.id)] };
  }
  if (template.includes('{state_id}')) {
    const state = (await admin.post(`${projectPath}/states`, { state: { name: 'In review', category: 'in_progress' } })).body;
    const path = `${projectPath}/states/${state.id}`;
    return { path, readPath: path, items: [keys.state(orgId, project.id, state.id)] };
  }
  if (template.startsWith('/api/v1/activity/')) {
    // A revert writes the issue its entry is of: a change of a backlog issue's title.
    const issue = (await admin.post(`${projectPath}/issues`, { issue: { title: 'Before' } })).body;
    const readPath = `${projectPath}/issues/${issue.id}`;
    expect((await admin.patch(readPath, { issue: { title: 'After' } })).status).toBe(200);
    const change = (await activityOf(admin, readPath, 2))[1];
    return { path: `/api/v1/activity/${change.id}/revert`, readPath, items: [keys.issue(orgId, project.id, issue.id)] };
  }
  if (!template.includes('{sprint_id}') && !template.includes('{issue_id}') && !template.includes('/comments/')) {
    return { path: projectPath, readPath: projectPath, items: [keys.project(orgId, project.id)] };
  }
  if (template.includes('{issue_id}') && !template.includes('{sprint_id}')) {
    const issue = (await admin.post(`${projectPath}/issues`, { issue: { title: 'Later' } })).body;
    const path = `${projectPath}/issues/${issue.id}`;
    return { path, readPath: path, items: [keys.issue(orgId, project.id, issue.id)] };
  }
  const sprint = (await admin.post(`${projectPath}/sprints`, { sprint: { name: 'Next' } })).body;
  const sprintPath = `${projectPath}/sprints/${sprint.id}`;
  if (/\/(complete|completion)$/.test(template)) expect((await admin.post(`${sprintPath}/activate`)).status).toBe(200);
  if (/\/(activate|activation|complete|completion)$/.test(template)) {
    const transition = template.split('/').pop()!;
    return { path: `${sprintPath}/${transition}`, readPath: sprintPath, items: [keys.sprint(orgId, project.id, sprint.id)] };
  }
  if (!template.includes('{issue_id}') && !template.includes('/comments/')) {
    return { path: sprintPath, readPath: sprintPath, items: [keys.sprint(orgId, project.id, sprint.id)] };
  }
  const issue = (await admin.post(`${sprintPath}/issues`, { issue: { title: 'Land', story_points: 3 } })).body;
  const issuePath = `${sprintPath}/issues/${issue.id}`;
  if (template.includes('{issue_id}'))
    return { path: issuePath, readPath: issuePath, items: [keys.issue(orgId, project.id, issue.id)] };
  const comment = (await admin.post(`${issuePath}/comments`, { comment: { body: 'Hello' } })).body;
  const path = `/api/v1/comments/${comment.id}`;
  return {
    path,
    readPath: path,
    items: [keys.comment(orgId, project.id, issue.id, comment.id), keys.commentPointer(orgId, comment.id)],
  };
}

/** A valid body for a conditional write of each kind (so that only its precondition can refuse it). */
function bodyOf(method: string, path: string): unknown {
  if (method === 'DELETE' || /\/(activate|activation|complete|completion|revert)$/.test(path)) return undefined;
  if (path.startsWith('/api/v1/comments')) return { comment: { body: 'changed' } };
  if (path.startsWith('/api/v1/webhooks')) return { webhook: { active: true } };
  if (path.includes('/labels/')) return { label: { name: 'Changed' } };
  if (path.includes('/states/')) return { state: { name: 'Changed' } };
  if (path.includes('/issues/')) return { issue: { title: 'Changed' } };
  if (path.includes('/sprints/')) return { sprint: { name: 'Changed' } };
  return { project: { name: 'Changed' } };
}

const conditional = routes.filter((r) => r.operation.conditional);

describe('If-Match on every conditional route', () => {
  it('covers the conditional routes of the route table', () => {
    expect(conditional.length).toBeGreaterThanOrEqual(17);
  });

  for (const route of conditional) {
    const name = `${route.method} ${route.path}`;
    it(`${name}: refuses "0-x", a weak, a forged and a malformed tag with 412, then writes at version 0 given a list with one current tag`, async () => {
      const { org, admin } = await orgWithClients(gateway);
      const target = await targetOf(route.path, admin, org.orgId);
      const body = bodyOf(route.method, target.path);
      const send = (ifMatch: string) =>
        admin.request(route.method, target.path, {
          headers: { 'If-Match': ifMatch },
          ...(body === undefined ? {} : { json: body }),
        });

      const issued = await admin.get(target.readPath);
      expect(etag(issued), name).toMatch(VERSION_TAG);
      await unversion(...target.items);
      const current = await admin.get(target.readPath);
      expect(etag(current), name).toMatch(/^"0-/);
      const [, digest, check] = /^"0-([\w-]{16})([\w-]{6})"$/.exec(etag(current)) ?? [];
      const forgedDigest = `"0-${digest === 'A'.repeat(16) ? 'B' : 'A'}${'A'.repeat(15)}${check}"`;
      const forgedCheck = `"0-${digest}${check === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}"`;

      for (const refused of [
        '"0-x"',
        `W/${etag(current)}`,
        forgedDigest,
        forgedCheck,
        `"0-x", W/${etag(current)}, ${forgedDigest}, ${etag(issued)}`,
      ]) {
        const res = await send(refused);
        expect(`${name} If-Match: ${refused} -> ${res.status}`).toBe(`${name} If-Match: ${refused} -> 412`);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      const untouched = await admin.get(target.readPath, { headers: { 'If-None-Match': etag(current) } });
      expect(`${name}: then ${untouched.status}`).toBe(`${name}: then 304`);

      // a stale (issued at version 1+) and the current tag: the current one makes the write apply
      const written = await send(`${etag(issued)}, ${etag(current)}`);
      const applied = route.method === 'DELETE' ? 204 : 200;
      expect(`${name}: ${written.status}`).toBe(`${name}: ${applied}`);
      if (route.method === 'DELETE') {
        expect((await admin.get(target.readPath)).status, name).toBe(404);
        return;
      }
      expect(etag(written), name).toMatch(VERSION_TAG);
      const read = etag(await admin.get(target.readPath));
      // a transition answers the sprint at the version written (its JSON may show more than a read); a revert, its issue
      if (body === undefined) {
        expect(VERSION_TAG.exec(etag(written))?.[1], name).toBe(VERSION_TAG.exec(read)?.[1]);
        return;
      }
      expect(etag(written), name).toBe(read);
      // the answer's tag is current: usable as is; the tag at version 0 no longer is
      const again = await send(etag(written));
      expect(`${name}: again ${again.status}`).toBe(`${name}: again 200`);
      const stale = await send(etag(current));
      expect(`${name}: stale ${stale.status}`).toBe(`${name}: stale 412`);
    }, 120_000);
  }
});

/**
 * What a delete route removes, made for it alone: its path, and how to tell it still exists. A
 * relation has no GET of its own: it exists while its issue's list shows it.
 */
async function deleteTargetOf(template: string, admin: ApiClient, orgId: number) {
  if (template.includes('{relation_id}')) {
    const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
    const issue = (title: string) => admin.post(`/api/v1/projects/${project.id}/issues`, { issue: { title } });
    const [one, two] = [(await issue('One')).body, (await issue('Two')).body];
    const list = `/api/v1/issues/${one.issue_number}/relations`;
    const created = await admin.post(list, { relation: { type: 'blocks', issue_key: two.issue_number } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const exists = async () => ((await admin.get(list)).body as { id: string }[]).some((r) => r.id === id);
    return { path: `${list}/${id}`, exists, tag: async () => etag(await admin.get(`/api/v1/issues/${one.issue_number}`)) };
  }
  const target = await targetOf(template, admin, orgId);
  const exists = async () => {
    const status = (await admin.get(target.readPath)).status;
    expect([200, 404]).toContain(status);
    return status === 200;
  };
  return { path: target.path, exists, tag: async () => etag(await admin.get(target.readPath)) };
}

describe('If-Match: * on every conditional delete of the route table', () => {
  const deletes = conditional.filter((r) => r.method === 'DELETE');

  it('covers the delete routes of the route table that take If-Match', () => {
    expect(deletes.length).toBeGreaterThanOrEqual(8);
    expect(deletes.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/api/v1/projects/{project_id}', '/api/v1/comments/{id}', '/api/v1/webhooks/{webhook_id}']),
    );
  });

  for (const route of deletes) {
    const name = `${route.method} ${route.path}`;
    it(`${name}: a list holding * is 412 (RFC 9110: * stands alone), * deletes (204), then * is 404`, async () => {
      const { org, admin } = await orgWithClients(gateway);
      const target = await deleteTargetOf(route.path, admin, org.orgId);
      const send = (ifMatch: string) => admin.request('DELETE', target.path, { headers: { 'If-Match': ifMatch } });

      for (const refused of ['"0-x", *', '*, *', `*, ${await target.tag()}`]) {
        const res = await send(refused);
        expect(`${name} If-Match: ${refused} -> ${res.status}`).toBe(`${name} If-Match: ${refused} -> 412`);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      expect(await target.exists(), name).toBe(true);

      const deleted = await send('*');
      expect(`${name} If-Match: * -> ${deleted.status}`).toBe(`${name} If-Match: * -> 204`);
      expect(await target.exists(), name).toBe(false);
      const gone = await send('*');
      expect(`${name} If-Match: * again -> ${gone.status}`).toBe(`${name} If-Match: * again -> 404`);
      expect(gone.body).toEqual({ error: expect.any(String) });
    }, 120_000);
  }
});

describe('ETags of write answers', () => {
  it('gives the webhook create and rotate answers a full ETag that If-Match accepts at once', async () => {
    const { admin } = await orgWithClients(gateway);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await admin.post('/api/v1/webhooks', { webhook: { url: receiver.url, events: ['sprint.completed'] } });
    expect(created.status).toBe(201);
    expect(etag(created)).toMatch(/^"1-[\w-]{22}"$/);
    const path = `/api/v1/webhooks/${created.body.id}`;
    const patched = await admin.patch(path, { webhook: { active: false } }, { headers: { 'If-Match': etag(created) } });
    expect(patched.status).toBe(200);

    const rotated = await admin.post(`${path}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toBeTypeOf('string');
    expect(etag(rotated)).toMatch(/^"3-[\w-]{22}"$/);
    // the create's tag is stale now; the rotation's is current
    expect((await admin.patch(path, { webhook: { active: true } }, { headers: { 'If-Match': etag(created) } })).status).toBe(412);
    expect((await admin.patch(path, { webhook: { active: true } }, { headers: { 'If-Match': etag(rotated) } })).status).toBe(200);
  });

  it("refuses a tag issued for another resource at the same version (412), though its version is the target's", async () => {
    const { admin } = await orgWithClients(gateway);
    const a = await admin.post('/api/v1/projects', { project: { name: 'A', prefix: randomPrefix() } });
    const b = await admin.post('/api/v1/projects', { project: { name: 'B', prefix: randomPrefix() } });
    expect(etag(a)).toMatch(/^"1-/);
    expect(etag(b)).toMatch(/^"1-/);
    const res = await admin.patch(
      `/api/v1/projects/${b.body.id}`,
      { project: { name: 'Never' } },
      { headers: { 'If-Match': etag(a) } },
    );
    expect(res.status).toBe(412);
    expect((await admin.get(`/api/v1/projects/${b.body.id}`)).body.name).toBe('B');
  });
});

describe('expected_version 0 (MCP)', () => {
  it('writes an issue written before versions existed at expected_version 0, and not again', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
    const issue = (await admin.post(`/api/v1/projects/${project.id}/issues`, { issue: { title: 'Old' } })).body;
    await unversion(keys.issue(org.orgId, project.id, issue.id));
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    const read = await mcp.ok('get_issue', { project_id: project.id, issue_id: issue.id });
    expect(read.version).toBe(0);

    const written = await mcp.ok('update_issue', {
      project_id: project.id,
      issue_id: issue.id,
      title: 'New',
      expected_version: 0,
    });
    expect(written.issue.title).toBe('New');
    expect(written.version).toBe(1);
    const again = await mcp.call('update_issue', {
      project_id: project.id,
      issue_id: issue.id,
      title: 'Again',
      expected_version: 0,
    });
    expect(again.result.isError).toBe(true);
    expect(again.text).toMatch(/changed/);
    expect((await admin.get(`/api/v1/projects/${project.id}/issues/${issue.id}`)).body.title).toBe('New');
    await mcp.close();
  });
});

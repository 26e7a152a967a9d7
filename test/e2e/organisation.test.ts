import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * The organisation's settings (docs/api.md, docs/trash.md): every member reads them, admins change
 * them under `If-Match`; the trash retention an organisation sets is what its deletes from then on
 * expire by (webhooks, labels and comments alike), what the trash already holds keeps its expiry, and null
 * goes back to the stage's default (30 days here).
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const DAY = 86_400_000;

/** A webhook endpoint on a local receiver. */
async function endpoint(admin: ApiClient): Promise<number> {
  const r = await startReceiver();
  receivers.push(r);
  const res = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['sprint.completed'] } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

/** Deletes a webhook endpoint and answers its trash entry. */
async function trashedWebhook(admin: ApiClient) {
  const id = await endpoint(admin);
  expect((await admin.delete(`/api/v1/webhooks/${id}`)).status).toBe(204);
  const entry = await admin.get(`/api/v1/trash/webhook-${id}`);
  expect(entry.status, entry.text).toBe(200);
  return entry.body as { id: string; deleted_at: string; expires_at: string };
}

/** Deletes a new label of a new project and answers its trash entry. */
async function trashedLabel(admin: ApiClient) {
  const project = await admin.post('/api/v1/projects', { project: { name: 'Labels', prefix: randomPrefix() } });
  const p = `/api/v1/projects/${project.body.id}`;
  const label = await admin.post(`${p}/labels`, { label: { name: 'bug' } });
  expect((await admin.delete(`${p}/labels/${label.body.id}`)).status).toBe(204);
  const entry = await admin.get(`/api/v1/trash/label-${label.body.id}`);
  expect(entry.status, entry.text).toBe(200);
  return entry.body as { id: string; deleted_at: string; expires_at: string };
}

/** Deletes a new comment on a new issue of a new project and answers its trash entry. */
async function trashedComment(admin: ApiClient) {
  const project = await admin.post('/api/v1/projects', { project: { name: 'Comments', prefix: randomPrefix() } });
  const p = `/api/v1/projects/${project.body.id}`;
  const issue = await admin.post(`${p}/issues`, { issue: { title: 'Commented' } });
  const comment = await admin.post(`${p}/issues/${issue.body.id}/comments`, { comment: { body: 'Gone soon' } });
  expect(comment.status, comment.text).toBe(201);
  expect((await admin.delete(`/api/v1/comments/${comment.body.id}`)).status).toBe(204);
  const entry = await admin.get(`/api/v1/trash/comment-${comment.body.id}`);
  expect(entry.status, entry.text).toBe(200);
  return entry.body as { id: string; deleted_at: string; expires_at: string };
}

/** Days between a trash entry's delete and its expiry (the TTL is whole seconds: within one second of whole days). */
const keptDays = (e: { deleted_at: string; expires_at: string }) => {
  const ms = Date.parse(e.expires_at) - Date.parse(e.deleted_at);
  expect(Math.abs(ms - Math.round(ms / DAY) * DAY), `${e.deleted_at} -> ${e.expires_at}`).toBeLessThan(1000);
  return Math.round(ms / DAY);
};

describe('the organisation', () => {
  it('shows every member its settings, the stage default in effect until an admin sets one', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const shown = await member.get('/api/v1/organisation');
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      id: org.orgId,
      name: expect.any(String),
      created_at: expect.any(String),
      trash_retention_days: null,
      effective_trash_retention_days: 30,
    });
    expect(shown.headers.get('etag')).toMatch(/^"\d+-/);
    expect((await admin.get('/api/v1/organisation')).body).toEqual(shown.body);
  });

  it('lets admins alone change the retention, within 1 to 3650 days, writing nothing otherwise', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const stored = async () =>
      (await db.send(new GetCommand({ TableName: tableName(), Key: keys.org(org.orgId), ConsistentRead: true }))).Item!;
    const before = await stored();

    const refused = await member.patch('/api/v1/organisation', { organisation: { trash_retention_days: 7 } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    for (const bad of [0, 3651, -1, 1.5, '7', true, {}]) {
      const res = await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.errors.join(' '), JSON.stringify(bad)).toContain('trash_retention_days');
    }
    const unknown = await admin.patch('/api/v1/organisation', { organisation: { retention_days: 7 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.join(' ')).toContain("did you mean 'trash_retention_days'?");
    expect(await stored()).toEqual(before);

    for (const days of [1, 3650]) {
      const res = await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: days } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ trash_retention_days: days, effective_trash_retention_days: days });
    }
    const put = await admin.put('/api/v1/organisation', { organisation: { trash_retention_days: 45 } });
    expect(put.body).toMatchObject({ trash_retention_days: 45, effective_trash_retention_days: 45 });
    expect((await member.get('/api/v1/organisation')).body).toMatchObject({ trash_retention_days: 45 });
    expect((await stored()).trash_retention_days).toBe(45);
    // Its name, id and creation are not settings: sent back, they are ignored.
    const sentBack = await admin.patch('/api/v1/organisation', {
      organisation: { id: 999, name: 'Other', created_at: '2000-01-01T00:00:00.000Z', trash_retention_days: 45 },
    });
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body).toMatchObject({ id: org.orgId, name: before.name, created_at: before.created_at });

    const reset = await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: null } });
    expect(reset.body).toMatchObject({ trash_retention_days: null, effective_trash_retention_days: 30 });
    expect('trash_retention_days' in (await stored())).toBe(false);
  });

  it('takes If-Match: the current ETag writes, a stale one is 412 and writes nothing', async () => {
    const { admin } = await orgWithClients(gateway);
    const first = await admin.get('/api/v1/organisation');
    const changed = await admin.patch(
      '/api/v1/organisation',
      { organisation: { trash_retention_days: 10 } },
      { headers: { 'If-Match': first.headers.get('etag')! } },
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
    const stale = await admin.patch(
      '/api/v1/organisation',
      { organisation: { trash_retention_days: 20 } },
      { headers: { 'If-Match': first.headers.get('etag')! } },
    );
    expect(stale.status).toBe(412);
    expect((await admin.get('/api/v1/organisation')).body.trash_retention_days).toBe(10);
    // Nothing to change still checks it.
    const empty = await admin.patch(
      '/api/v1/organisation',
      { organisation: {} },
      { headers: { 'If-Match': first.headers.get('etag')! } },
    );
    expect(empty.status).toBe(412);
  });

  it("expires what is deleted from then on by the organisation's retention; what the trash holds keeps its expiry", async () => {
    const { admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const underDefault = await trashedWebhook(admin);
    expect(keptDays(underDefault)).toBe(30);

    expect((await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: 7 } })).status).toBe(200);
    const webhook = await trashedWebhook(admin);
    const label = await trashedLabel(admin);
    const comment = await trashedComment(admin);
    expect(keptDays(webhook)).toBe(7);
    expect(keptDays(label)).toBe(7);
    expect(keptDays(comment)).toBe(7);
    // Already in the trash: as its delete left it.
    expect((await admin.get(`/api/v1/trash/${underDefault.id}`)).body.expires_at).toBe(underDefault.expires_at);
    // Another organisation keeps the stage's default.
    expect(keptDays(await trashedWebhook(other.admin))).toBe(30);

    expect((await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: 400 } })).status).toBe(200);
    expect((await admin.get(`/api/v1/trash/${webhook.id}`)).body.expires_at).toBe(webhook.expires_at);
    expect(keptDays(await trashedLabel(admin))).toBe(400);
    expect(keptDays(await trashedComment(admin))).toBe(400);

    expect((await admin.patch('/api/v1/organisation', { organisation: { trash_retention_days: null } })).status).toBe(200);
    expect(keptDays(await trashedWebhook(admin))).toBe(30);
  });
});

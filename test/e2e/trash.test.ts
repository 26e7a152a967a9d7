import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { nextLink, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { pastRetention } from '../support/trash.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * The trash end to end (docs/trash.md): a deleted webhook endpoint leaves the list and its count
 * at once and enters the organisation's trash in the same transaction; a restore brings it back
 * whole with the same id; a purge deletes it for good; an item past its retention is gone.
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** An endpoint on a local receiver, subscribed to an event these tests never cause. */
async function endpoint(admin: ApiClient) {
  const r = await startReceiver();
  receivers.push(r);
  const res = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['sprint.completed'] } });
  expect(res.status).toBe(201);
  const { secret: _secret, ...shown } = res.body;
  return shown as { id: number; url: string };
}

describe('the trash', () => {
  it('takes a deleted webhook at once, lists it newest first, and restores it whole with the same id', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const kept = await endpoint(admin);
    const doomed = await endpoint(admin);
    const before = await admin.get(`/api/v1/webhooks/${doomed.id}`);
    const listBefore = await admin.get('/api/v1/webhooks');
    expect(listBefore.headers.get('x-total-count')).toBe('2');

    const deleted = await admin.delete(`/api/v1/webhooks/${doomed.id}`);
    expect(deleted.status).toBe(204);
    expect((await admin.get(`/api/v1/webhooks/${doomed.id}`)).status).toBe(404);
    const listAfter = await admin.get('/api/v1/webhooks');
    expect(listAfter.body.map((w: { id: number }) => w.id)).toEqual([kept.id]);
    expect(listAfter.headers.get('x-total-count')).toBe('1');

    // A second delete, later: the trash lists it first.
    await admin.delete(`/api/v1/webhooks/${kept.id}`);
    const trash = await admin.get('/api/v1/trash');
    expect(trash.status).toBe(200);
    expect(trash.body.map((t: { id: string }) => t.id)).toEqual([`webhook-${kept.id}`, `webhook-${doomed.id}`]);
    expect(trash.body[1]).toMatchObject({ kind: 'webhook', item_id: doomed.id, title: doomed.url, deleted_by: org.admin.id });
    const deletedAt = Date.parse(trash.body[1].deleted_at);
    expect(Date.parse(trash.body[1].expires_at) - deletedAt).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect((await admin.get('/api/v1/trash?kind=webhook')).body).toHaveLength(2);
    expect((await admin.get('/api/v1/trash?kind=sprint')).body).toEqual([]);
    expect((await admin.get('/api/v1/trash?kind=account')).status).toBe(422);
    const paged = await admin.get('/api/v1/trash?per_page=1');
    expect(paged.body.map((t: { id: string }) => t.id)).toEqual([`webhook-${kept.id}`]);
    const next = nextLink(paged);
    expect(next).toBeDefined();
    const second = await admin.get(next!);
    expect(second.body.map((t: { id: string }) => t.id)).toEqual([`webhook-${doomed.id}`]);

    const restored = await admin.post(`/api/v1/trash/webhook-${doomed.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ kind: 'webhook', item: before.body });
    expect(restored.dbCalls).toBeLessThanOrEqual(3);
    const again = await admin.get(`/api/v1/webhooks/${doomed.id}`);
    expect(again.body).toEqual(before.body);
    expect(again.headers.get('etag')).toBe(before.headers.get('etag'));
    const list = await admin.get('/api/v1/webhooks');
    expect(list.body.map((w: { id: number }) => w.id)).toEqual([doomed.id]);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect((await admin.get('/api/v1/trash')).body.map((t: { id: string }) => t.id)).toEqual([`webhook-${kept.id}`]);
    // Restored once: a second restore finds nothing.
    expect((await admin.post(`/api/v1/trash/webhook-${doomed.id}/restore`)).status).toBe(404);
  });

  it("shows a member only what they deleted (an admin's webhook is 404 to them), purges for admins only", async () => {
    const { admin, member } = await orgWithClients(gateway);
    const w = await endpoint(admin);
    await admin.delete(`/api/v1/webhooks/${w.id}`);
    const path = `/api/v1/trash/webhook-${w.id}`;
    const seen = await member.get('/api/v1/trash');
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual([]);
    expect((await member.get(path)).status).toBe(404);
    expect((await member.post(`${path}/restore`)).status).toBe(404);
    expect((await member.delete(path)).status).toBe(403);
    expect((await admin.get(path)).status).toBe(200);
    const other = await orgWithClients(gateway);
    expect((await other.admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await other.admin.get(path)).status).toBe(404);
    expect((await other.admin.post(`${path}/restore`)).status).toBe(404);
    expect((await other.admin.delete(path)).status).toBe(404);
    expect((await admin.post('/api/v1/trash/webhook-999999/restore')).status).toBe(404);
    expect((await admin.post('/api/v1/trash/sprint-1/restore')).status).toBe(404);
    expect((await admin.get(`/api/v1/webhooks/${w.id}`)).status).toBe(404);
  });

  it('purges for good on an admin’s DELETE, at the version its If-Match names', async () => {
    const { admin } = await orgWithClients(gateway);
    const w = await endpoint(admin);
    await admin.delete(`/api/v1/webhooks/${w.id}`);
    const path = `/api/v1/trash/webhook-${w.id}`;
    const one = await admin.get(path);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: `webhook-${w.id}`, kind: 'webhook', item_id: w.id, title: w.url });
    const etag = one.headers.get('etag')!;
    expect(etag).toMatch(/^"1-/);
    expect((await admin.get(path, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    // A stale or foreign ETag purges nothing.
    const webhookTag = (await admin.get(`/api/v1/webhooks/${(await endpoint(admin)).id}`)).headers.get('etag')!;
    for (const tag of ['"2-stale"', webhookTag]) {
      const refused = await admin.delete(path, { headers: { 'If-Match': tag } });
      expect(refused.status, tag).toBe(412);
    }
    expect((await admin.get(path)).status).toBe(200);
    const purged = await admin.delete(path, { headers: { 'If-Match': etag } });
    expect(purged.status).toBe(204);
    expect((await admin.get(path)).status).toBe(404);
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.post(`/api/v1/trash/webhook-${w.id}/restore`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/trash/webhook-${w.id}`)).status).toBe(404);
  });

  it('refuses a restore past the endpoint limit with 422, and restores nothing', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const orgId = org.orgId;
    const w = await endpoint(admin);
    await admin.delete(`/api/v1/webhooks/${w.id}`);
    // The organisation is at its limit meanwhile.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.org(orgId),
        UpdateExpression: 'SET webhooks_count = :n',
        ExpressionAttributeValues: { ':n': 20 },
      }),
    );
    const refused = await admin.post(`/api/v1/trash/webhook-${w.id}/restore`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/most endpoints/);
    expect((await admin.get(`/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await admin.get('/api/v1/trash')).body).toHaveLength(1);
  });

  it('treats an item past its retention as purged (DynamoDB Local does not apply TTL)', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const orgId = org.orgId;
    const w = await endpoint(admin);
    await admin.delete(`/api/v1/webhooks/${w.id}`);
    await pastRetention(keys.trash(orgId, keys.webhook(orgId, w.id).SK));
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect((await admin.get(`/api/v1/trash/webhook-${w.id}`)).status).toBe(404);
    expect((await admin.post(`/api/v1/trash/webhook-${w.id}/restore`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/trash/webhook-${w.id}`)).status).toBe(404);
    expect((await admin.get(`/api/v1/webhooks/${w.id}`)).status).toBe(404);
  });

  it('tells subscribed endpoints of each restore and purge: <kind>.restored and <kind>.purged, with the actor', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const r = await startReceiver();
    receivers.push(r);
    const events = ['label.restored', 'label.purged', 'webhook.restored', 'webhook.purged'];
    const hook = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events } });
    expect(hook.status).toBe(201);
    r.secret = hook.body.secret;

    const project = (await admin.post('/api/v1/projects', { project: { name: 'Events', prefix: randomPrefix() } })).body;
    const labels = `/api/v1/projects/${project.id}/labels`;
    const label = (await member.post(labels, { label: { name: 'bug' } })).body;
    const doomed = await endpoint(admin);
    await member.delete(`${labels}/${label.id}`);
    expect((await member.post(`/api/v1/trash/label-${label.id}/restore`)).status).toBe(200);
    await admin.delete(`/api/v1/webhooks/${doomed.id}`);
    expect((await admin.post(`/api/v1/trash/webhook-${doomed.id}/restore`)).status).toBe(200);
    await admin.delete(`/api/v1/webhooks/${doomed.id}`);
    expect((await admin.delete(`/api/v1/trash/webhook-${doomed.id}`)).status).toBe(204);
    await admin.delete(`${labels}/${label.id}`);
    expect((await admin.delete(`/api/v1/trash/label-${label.id}`)).status).toBe(204);
    // One more label, removed from the trash as its TTL would: purged by no one.
    const expiring = (await admin.post(labels, { label: { name: 'old' } })).body;
    await admin.delete(`${labels}/${expiring.id}`);
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.trash(org.orgId, keys.label(org.orgId, project.id, expiring.id).SK),
      }),
    );

    await waitFor(() => r.accepted().length >= 5, 90_000, 'five trash events');
    const got = r.accepted().map((d) => d.body);
    const of = (type: string) => got.filter((b) => b.type === type).map((b) => b.data);
    expect(of('label.restored')).toEqual([
      expect.objectContaining({
        organisation_id: org.orgId,
        project_id: project.id,
        actor_id: org.member.id,
        label,
        changes: [],
      }),
    ]);
    expect(of('webhook.restored')).toEqual([
      expect.objectContaining({
        project_id: null,
        actor_id: org.admin.id,
        webhook: expect.objectContaining({ id: doomed.id, url: doomed.url }),
      }),
    ]);
    expect(of('webhook.purged')).toEqual([expect.objectContaining({ actor_id: org.admin.id })]);
    expect(of('webhook.purged')[0].webhook).not.toHaveProperty('secret');
    // Deliveries need not arrive in the order of the events: the two purges in the order of their labels.
    const purged = of('label.purged').sort((a, b) => a.label.id - b.label.id);
    expect(purged).toEqual([
      expect.objectContaining({ actor_id: org.admin.id, label }),
      expect.objectContaining({ actor_id: null, label: expect.objectContaining({ id: expiring.id, name: 'old' }) }),
    ]);
  }, 120_000);
});

import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * `attachment.added` (a file uploaded and completed), `attachment.removed` (a ready one deleted,
 * into the trash), `attachment.restored` and `attachment.purged` (its trash item's removal)
 * in the issue's activity history and in webhook deliveries to a real local receiver on 127.0.0.1,
 * which verifies each signature (test/support/receiver.ts). A pending attachment, declared and never
 * completed, then deleted, is no event.
 */
const gateway = useGateway();
const FEED_WAIT_MS = 90_000;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function postForm(upload: { url: string; fields: Record<string, string> }, file: Buffer, type: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type }), 'file');
  return fetch(upload.url, { method: 'POST', body });
}

describe('attachment events', () => {
  it('are in the activity history and reach the webhooks that subscribe to them, each with its actor', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const r = await startReceiver();
    receivers.push(r);
    const hook = await admin.post('/api/v1/webhooks', {
      webhook: { url: r.url, events: ['attachment.added', 'attachment.removed', 'attachment.restored', 'attachment.purged'] },
    });
    expect(hook.status).toBe(201);
    r.secret = hook.body.secret;
    const unknown = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['attachment.made'] } });
    expect(unknown.status).toBe(422);
    const p = (await admin.post('/api/v1/projects', { project: { name: 'Files', prefix: randomPrefix() } })).body;
    const issue = (await admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title: 'Crash' } })).body;
    const base = `/api/v1/issues/${issue.issue_number}/attachments`;
    const file = Buffer.from('a log line\n');
    const declared = await member.post(base, {
      attachment: {
        name: 'app.log',
        content_type: 'text/plain',
        size: file.length,
        sha256: createHash('sha256').update(file).digest('hex'),
      },
    });
    expect(declared.status).toBe(201);
    // Declared and never completed: no event, even when deleted.
    const abandoned = await member.post(base, {
      attachment: { name: 'x.bin', content_type: 'application/octet-stream', size: 3 },
    });
    expect((await postForm(declared.body.upload, file, 'text/plain')).status).toBe(204);
    expect((await member.post(`${base}/${declared.body.id}/complete`)).status).toBe(200);
    expect((await admin.delete(`${base}/${abandoned.body.id}`)).status).toBe(204);
    expect((await admin.delete(`${base}/${declared.body.id}`)).status).toBe(204);
    // In the trash (in no answer), back (by an admin), deleted again by its uploader, and purged.
    expect((await member.delete(`${base}/${declared.body.id}`)).status).toBe(404);
    expect((await admin.post(`/api/v1/trash/attachment-${declared.body.id}/restore`)).status).toBe(200);
    expect((await member.delete(`${base}/${declared.body.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/trash/attachment-${declared.body.id}`)).status).toBe(204);

    await waitFor(() => r.accepted().length >= 5, FEED_WAIT_MS, 'every event');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.requests.every((q) => q.verified)).toBe(true);
    // Deliveries are not ordered (docs/change-feed.md): their `timestamp`s give the order the events happened in.
    const sent = r
      .accepted()
      .map((q) => q.body)
      .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
    expect(sent.map((b) => [b.type, b.data.actor_id, b.data.attachment.id, b.data.attachment.status])).toEqual([
      ['attachment.added', org.member.id, declared.body.id, 'ready'],
      ['attachment.removed', org.admin.id, declared.body.id, 'ready'],
      ['attachment.restored', org.admin.id, declared.body.id, 'ready'],
      ['attachment.removed', org.member.id, declared.body.id, 'ready'],
      ['attachment.purged', org.admin.id, declared.body.id, 'ready'],
    ]);
    expect(sent[0].data.attachment).toMatchObject({ name: 'app.log', size: file.length, download_url: null });

    const path = `/api/v1/projects/${p.id}/issues/${issue.id}`;
    const entries = await activityOf(admin, path, 5, (e: { event: string }) => e.event.startsWith('attachment.'));
    expect(entries.map((e) => e.event).sort()).toEqual([
      'attachment.added',
      'attachment.purged',
      'attachment.removed',
      'attachment.removed',
      'attachment.restored',
    ]);
    for (const e of entries) expect(e).toMatchObject({ issue_id: issue.id, comment_id: null });
  }, 120_000);
});

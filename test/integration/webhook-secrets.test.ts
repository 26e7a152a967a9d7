import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { getDelivery, insertDelivery, insertWebhook, pendingDelivery, updateWebhook } from '../../lib/db/webhooks/webhooks.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createWebhook, rotateWebhookSecret, sealPlaintextSecrets } from '../../lib/services/webhook-secrets.ts';
import { processDelivery } from '../../lib/webhooks/deliver.ts';
import { localSecretBox, useSecretBox, type SecretBox } from '../../lib/aws/secret-box.ts';
import { generateSecret } from '../../lib/model/signing.ts';
import { newOrganisation } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { testSecretKey } from '../support/secret-key.ts';

/**
 * Signing secrets sealed at rest (lib/aws/secret-box.ts), here with the test run's local key
 * in place of KMS: the same code path seals at creation and rotation and opens in the delivery
 * function. Deliveries go to receivers on 127.0.0.1 that verify with the `standardwebhooks` package.
 */

const receivers: Receiver[] = [];
afterEach(async () => {
  useSecretBox(undefined);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function setup() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const receiver = await startReceiver('127.0.0.1');
  receivers.push(receiver);
  return { orgId: org.orgId, caller, receiver };
}

const rawItem = async (orgId: number, webhookId: number) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhook(orgId, webhookId), ConsistentRead: true }))).Item!;

const settings = {
  allowLoopback: true,
  backoffBaseMs: 1000,
  backoffMaxMs: 1000,
  retryWindowMs: 60_000,
  disableAfterMs: 60_000,
  timeoutMs: 2000,
};

let deliveries = 0;
/** One delivery of a fresh message to the endpoint, run as the delivery function runs it; returns its outcome. */
async function deliverOnce(orgId: number, webhookId: number, id = `msg_secret_${++deliveries}_${Date.now()}`) {
  const now = new Date().toISOString();
  await insertDelivery(
    pendingDelivery({
      id,
      orgId,
      webhookId,
      event: 'issue.created',
      payload: JSON.stringify({ type: 'issue.created', data: { id: deliveries } }),
      at: now,
    }),
  );
  const message = { orgId, webhookId, deliveryId: id, attempt: 1, firstAttemptAt: null, notBefore: 0 };
  return { id, outcome: await processDelivery(message, { settings, queue: { send: async () => {} } }) };
}

describe('webhook signing secrets at rest', () => {
  it('are stored sealed: the raw item holds no plaintext secret, and the delivery verifies with the secret shown at creation', async () => {
    const { orgId, caller, receiver } = await setup();
    const created = await createWebhook(caller, { url: receiver.url, events: ['*'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const item = await rawItem(orgId, created.id);
    expect(item.secret).toMatch(/^enc:local:v1:/);
    const raw = JSON.stringify(item);
    expect(raw).not.toContain(created.secret);
    expect(raw).not.toContain(created.secret.slice('whsec_'.length));

    receiver.secret = created.secret;
    expect((await deliverOnce(orgId, created.id)).outcome).toBe('succeeded');
    expect(receiver.requests.map((r) => r.verified)).toEqual([true]);
  });

  it('keep both signatures through a rotation: the old secret and the new one each verify, both stored sealed', async () => {
    const { orgId, caller, receiver } = await setup();
    const created = await createWebhook(caller, { url: receiver.url, events: ['*'] });
    const before = await rawItem(orgId, created.id);
    const rotated = await rotateWebhookSecret(caller, created.id);
    expect(rotated.secret).not.toBe(created.secret);

    const item = await rawItem(orgId, created.id);
    // The previous secret is kept as it was stored: rotating opens nothing.
    expect(item.previous_secret).toBe(before.secret);
    expect(item.secret).toMatch(/^enc:local:v1:/);
    expect(JSON.stringify(item)).not.toContain(rotated.secret);

    receiver.secret = rotated.secret;
    await deliverOnce(orgId, created.id);
    receiver.secret = created.secret;
    await deliverOnce(orgId, created.id);
    expect(receiver.requests.map((r) => r.verified)).toEqual([true, true]);
  });

  it('written in plaintext before sealing still deliver, and are sealed at the next rotation', async () => {
    const { orgId, caller, receiver } = await setup();
    const legacy = generateSecret();
    const now = new Date().toISOString();
    const base = { orgId, url: receiver.url, events: ['*'], active: true, disabledReason: null };
    await insertWebhook(orgId, { ...base, id: 1, secret: legacy, createdAt: now, updatedAt: now });

    receiver.secret = legacy;
    expect((await deliverOnce(orgId, 1)).outcome).toBe('succeeded');

    const rotated = await rotateWebhookSecret(caller, 1);
    const item = await rawItem(orgId, 1);
    expect(item.secret).toMatch(/^enc:local:v1:/);
    expect(item.previous_secret).toMatch(/^enc:local:v1:/);
    expect(JSON.stringify(item)).not.toContain(legacy.slice('whsec_'.length));

    await deliverOnce(orgId, 1);
    receiver.secret = rotated.secret;
    await deliverOnce(orgId, 1);
    expect(receiver.requests.map((r) => r.verified)).toEqual([true, true, true]);
  });

  it('written in plaintext are sealed by the upgrade command (both of them), once, and still deliver', async () => {
    const { orgId, receiver } = await setup();
    const [current, previous] = [generateSecret(), generateSecret()];
    const now = new Date().toISOString();
    await insertWebhook(orgId, {
      orgId,
      id: 1,
      url: receiver.url,
      events: ['*'],
      active: true,
      disabledReason: null,
      secret: current,
      previousSecret: previous,
      previousSecretExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      createdAt: now,
      updatedAt: now,
    });

    expect(await sealPlaintextSecrets(orgId)).toEqual({ webhooks: 1, sealed: 1 });
    const item = await rawItem(orgId, 1);
    expect(item.secret).toMatch(/^enc:local:v1:/);
    expect(item.previous_secret).toMatch(/^enc:local:v1:/);
    for (const secret of [current, previous]) expect(JSON.stringify(item)).not.toContain(secret.slice('whsec_'.length));
    expect(await sealPlaintextSecrets(orgId)).toEqual({ webhooks: 0, sealed: 0 });

    receiver.secret = current;
    await deliverOnce(orgId, 1);
    receiver.secret = previous;
    await deliverOnce(orgId, 1);
    expect(receiver.requests.map((r) => r.verified)).toEqual([true, true]);
  });

  it('copied onto another endpoint do not open: that delivery fails to run, unclaimed, and nothing is sent', async () => {
    const { orgId, caller, receiver } = await setup();
    const a = await createWebhook(caller, { url: receiver.url, events: ['*'] });
    const b = await createWebhook(caller, { url: receiver.url, events: ['*'] });
    await updateWebhook(orgId, b.id, { secret: (await rawItem(orgId, a.id)).secret });

    await expect(deliverOnce(orgId, b.id, 'msg_copied')).rejects.toThrow();
    const attempted = await getDelivery(orgId, b.id, 'msg_copied');
    // The message comes back from the queue (SQS retries it): it must still find its attempt unclaimed.
    expect(attempted).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.requests).toEqual([]);
  });

  it('are opened once for many attempts (the delivery function keeps opened secrets for a while)', async () => {
    const { orgId, caller, receiver } = await setup();
    const created = await createWebhook(caller, { url: receiver.url, events: ['*'] });
    let opens = 0;
    const real: SecretBox = localSecretBox(Buffer.from(testSecretKey, 'base64'));
    useSecretBox({ seal: real.seal, open: (stored, owner) => (opens++, real.open(stored, owner)) });

    receiver.secret = created.secret;
    for (let i = 0; i < 3; i++) await deliverOnce(orgId, created.id);
    expect(receiver.requests.map((r) => r.verified)).toEqual([true, true, true]);
    expect(opens).toBe(1);
  });
});

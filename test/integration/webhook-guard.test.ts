import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getDelivery,
  getWebhookItem,
  insertDelivery,
  insertWebhook,
  pendingDelivery,
  trashWebhook,
} from '../../lib/db/webhooks/webhooks.ts';
import { processDelivery, type DeliverySettings } from '../../lib/webhooks/deliver.ts';
import type { DeliveryMessage } from '../../lib/webhooks/queue.ts';
import { generateSecret } from '../../lib/model/signing.ts';
import { newOrganisation } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * The guard and the words of a failed attempt, at delivery, against receivers on 127.0.0.1 only:
 * the endpoint is stored directly (as one registered before a rule existed would be) and one
 * attempt is run. Loopback not allowed is the setting in AWS.
 */
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver('127.0.0.1');
  receivers.push(r);
  return r;
}

const settings = (allowLoopback: boolean, timeoutMs = 2000): DeliverySettings => ({
  allowLoopback,
  backoffBaseMs: 1000,
  backoffMaxMs: 1000,
  retryWindowMs: 60_000,
  disableAfterMs: 60_000,
  timeoutMs,
});

/** Endpoint 1 of the organisation at `url` (stored directly), with one pending delivery `deliveryId`. */
async function seedPending(orgId: number, url: string, deliveryId: string): Promise<void> {
  const now = new Date().toISOString();
  await insertWebhook(orgId, {
    id: 1,
    orgId,
    url,
    events: ['*'],
    active: true,
    disabledReason: null,
    secret: generateSecret(),
    createdAt: now,
    updatedAt: now,
  });
  await insertDelivery(pendingDelivery({ id: deliveryId, orgId, webhookId: 1, event: 'issue.created', payload: '{}', at: now }));
}

/** One attempt of one delivery to `url`; what it came to and the delivery as recorded. */
async function attempt(url: string, deliverySettings: DeliverySettings) {
  const org = await newOrganisation();
  await seedPending(org.orgId, url, 'msg_guard');
  const sent: DeliveryMessage[] = [];
  const message = { orgId: org.orgId, webhookId: 1, deliveryId: 'msg_guard', attempt: 1, firstAttemptAt: null, notBefore: 0 };
  const queue = { send: async (m: DeliveryMessage[]) => void sent.push(...m) };
  const outcome = await processDelivery(message, { settings: deliverySettings, queue });
  const delivery = await getDelivery(org.orgId, 1, 'msg_guard');
  return { outcome, delivery, sent, again: () => processDelivery(message, { settings: deliverySettings, queue }) };
}

const port = (r: Receiver) => new URL(r.url).port;

describe('the private-address guard in AWS (loopback not allowed)', () => {
  it('refuses a hostname that resolves to loopback, naming the kind and not the address: the receiver gets nothing', async () => {
    const r = await receiver();
    const { outcome, delivery, sent, again } = await attempt(r.url.replace('127.0.0.1', 'localhost'), settings(false));

    expect(outcome).toBe('retrying');
    expect(r.requests).toEqual([]);
    expect(delivery?.error).toBe('refused: localhost resolves to a loopback address');
    expect(sent).toMatchObject([{ deliveryId: 'msg_guard', attempt: 2 }]);
    // The same message again (SQS delivers at least once) makes no second attempt.
    expect(await again()).toBe('duplicate');
  });

  it.each(['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'])(
    'refuses IPv4-mapped loopback %s: the receiver gets nothing',
    async (host) => {
      const r = await receiver();
      const { outcome, delivery } = await attempt(`http://${host}:${port(r)}/hooks`, settings(false));

      expect(outcome).toBe('retrying');
      expect(r.requests).toEqual([]);
      expect(delivery).toMatchObject({
        error: 'refused: ::ffff:7f00:1 is a loopback address (IPv4-mapped 127.0.0.1)',
        responseCode: null,
      });
    },
  );
});

describe('the private-address guard where loopback is allowed (locally)', () => {
  it('delivers to a loopback address', async () => {
    const r = await receiver();
    const { outcome, delivery } = await attempt(`http://127.0.0.1:${port(r)}/hooks`, settings(true));

    expect(outcome).toBe('succeeded');
    expect(r.requests).toHaveLength(1);
    expect(delivery).toMatchObject({ status: 'succeeded', responseCode: 204, error: null });
  });

  it.each(['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'])(
    'refuses IPv4-mapped %s, which carries 127.0.0.1 but is no loopback address: the receiver gets nothing',
    async (host) => {
      const r = await receiver();
      const { outcome, delivery } = await attempt(`http://${host}:${port(r)}/hooks`, settings(true));

      expect(outcome).toBe('retrying');
      expect(r.requests).toEqual([]);
      expect(delivery).toMatchObject({ error: 'refused: ::ffff:7f00:1 is a loopback address (IPv4-mapped 127.0.0.1)' });
    },
  );

  it('refuses a port outside 80, 443 and 1024-65535 before connecting, even to loopback', async () => {
    const { outcome, delivery } = await attempt('http://127.0.0.1:22/hooks', settings(true));
    expect(outcome).toBe('retrying');
    expect(delivery?.error).toBe('refused: port 22 is not allowed (only 80, 443 and 1024-65535)');
  });
});

describe('the words of a failed delivery', () => {
  it('say "connection refused" when nothing listens, not the network error with its address', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    const { outcome, delivery } = await attempt(url, settings(true));
    expect(outcome).toBe('retrying');
    expect(delivery).toMatchObject({ error: 'connection refused', responseCode: null });
  });

  it('say "timeout" when the receiver accepts the connection and never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port: silentPort } = silent.address() as AddressInfo;
      const { outcome, delivery } = await attempt(`http://127.0.0.1:${silentPort}/hooks`, settings(true, 300));
      expect(outcome).toBe('retrying');
      expect(delivery).toMatchObject({ error: 'timeout: no response within 300 ms', responseCode: null });
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('say "TLS failure" when https meets a receiver that does not speak TLS', async () => {
    const r = await receiver();
    const { delivery } = await attempt(r.url.replace('http:', 'https:'), settings(true));
    expect(delivery).toMatchObject({ error: 'TLS failure: no secure connection could be made', responseCode: null });
  });

  it('say "HTTP status N" when the receiver answers other than 2xx', async () => {
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const { delivery } = await attempt(r.url, settings(true));
    expect(delivery).toMatchObject({ error: 'HTTP status 500', responseCode: 500 });
  });
});

describe('an endpoint deleted while its attempt runs', () => {
  it('records the attempt, queues the retry without failing the message, and the retry cancels the delivery', async () => {
    const r = await receiver();
    let deleting: Promise<void> | undefined;
    let orgId = 0;
    // The receiver deletes the endpoint, then answers 500 once the delete is done.
    r.respond = () => {
      deleting ??= getWebhookItem(orgId, 1).then((w) => trashWebhook(orgId, w!, 1, undefined));
      return { status: 500, delayMs: 500 };
    };
    const org = await newOrganisation();
    orgId = org.orgId;
    await seedPending(orgId, r.url, 'msg_gone');
    const sent: DeliveryMessage[] = [];
    const queue = { send: async (m: DeliveryMessage[]) => void sent.push(...m) };
    const message = { orgId, webhookId: 1, deliveryId: 'msg_gone', attempt: 1, firstAttemptAt: null, notBefore: 0 };

    expect(await processDelivery(message, { settings: settings(true), queue })).toBe('retrying');
    await deleting;
    expect(await getDelivery(orgId, 1, 'msg_gone')).toMatchObject({ status: 'pending', error: 'HTTP status 500', attempts: 1 });
    expect(sent).toHaveLength(1);
    expect(await processDelivery(sent[0] as DeliveryMessage, { settings: settings(true), queue })).toBe('cancelled');
    expect(await getDelivery(orgId, 1, 'msg_gone')).toMatchObject({ status: 'cancelled', error: 'the webhook was deleted' });
    expect(r.requests).toHaveLength(1);
  });
});

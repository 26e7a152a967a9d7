import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import type { PageRequest } from '../db/list.ts';
import { nextId } from '../db/sequences.ts';
import { sameVersion } from '../db/versions.ts';
import * as store from '../db/webhooks.ts';
import type { Delivery, Webhook, WebhookCreate, WebhookUpdate } from '../schemas/webhooks.ts';
import { endpointRefusal } from '../webhooks/address-guard.ts';
import { generateSecret } from '../webhooks/signing.ts';
import { ForbiddenError, NotFoundError, TransitionError, ValidationError } from './errors.ts';
import type { Principal } from './principal.ts';
import { refusedAs } from './refusals.ts';

/** How long a rotated-out secret still signs deliveries, so receivers can switch without a gap. */
export const PREVIOUS_SECRET_HOURS = 24;
/** Deliveries `GET …/deliveries` shows: the most recent ones. */
export const RECENT_DELIVERIES = 100;

const refusals = {
  [store.webhookRefusals.webhook]: () => new NotFoundError('Webhook'),
  [store.webhookRefusals.delivery]: () => new TransitionError('The delivery is still pending: it is being delivered'),
  [store.webhookRefusals.limit]: () =>
    new ValidationError([`webhooks: an organisation may have at most ${store.MAX_WEBHOOKS} endpoints`]),
};

/** Webhooks are the organisation's integrations: admins only (403 for members, whatever the id). */
function requireAdmin(caller: Principal) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may manage webhooks');
}

async function ownWebhook(caller: Principal, webhookId: number): Promise<store.WebhookItem> {
  requireAdmin(caller);
  const found = await store.getWebhookItem(caller.orgId, webhookId);
  if (!found) throw new NotFoundError('Webhook');
  return found;
}

/**
 * Refuses an endpoint the delivery guard would refuse whatever its host resolves to: a port outside
 * 80, 443 and 1024-65535, or a literal address of a refused kind. Judged with the same loopback
 * setting as delivery, so a local run can still register a receiver on 127.0.0.1.
 */
function checkEndpoint(url: string) {
  const refusal = endpointRefusal(new URL(url), config.webhooks.allowLoopback);
  if (refusal) throw new ValidationError([`url is refused: ${refusal}`]);
}

/** Registers an endpoint; the answer carries its signing secret, the only time it is shown. */
export async function createWebhook(caller: Principal, input: WebhookCreate): Promise<Webhook & { secret: string }> {
  requireAdmin(caller);
  checkEndpoint(input.url);
  const id = await nextId(caller.orgId, 'webhook');
  const now = new Date().toISOString();
  const item: store.WebhookItem = {
    id,
    org_id: caller.orgId,
    url: input.url,
    events: input.events,
    active: input.active ?? true,
    disabled_reason: null,
    secret: generateSecret(),
    created_at: now,
    updated_at: now,
  };
  await refusedAs(refusals, () => store.insertWebhook(caller.orgId, item));
  // Inserted at version 1 (lib/db/actor.ts): the answer's ETag is usable with If-Match at once.
  const created = store.toWebhook({ ...keys.webhook(caller.orgId, id), ...item, version: 1 });
  return sameVersion(created, { ...created, secret: item.secret });
}

export async function listWebhooks(caller: Principal, page: PageRequest) {
  requireAdmin(caller);
  const { page: result, total } = await store.listWebhooks(caller.orgId, page);
  return { page: result, items: result.items.map(store.toWebhook), total };
}

export async function getWebhook(caller: Principal, webhookId: number): Promise<Webhook> {
  return store.toWebhook(await ownWebhook(caller, webhookId));
}

/** Changes an endpoint; `active: true` re-enables one the service disabled, clearing the reason. */
export async function updateWebhook(caller: Principal, webhookId: number, changes: WebhookUpdate): Promise<Webhook> {
  await ownWebhook(caller, webhookId);
  if (changes.url !== undefined) checkEndpoint(changes.url);
  const fields: Partial<store.WebhookItem> = { ...changes, updated_at: new Date().toISOString() };
  if (changes.active !== undefined) {
    fields.disabled_reason = null;
    fields.failing_since = null;
  }
  return store.toWebhook(await refusedAs(refusals, () => store.updateWebhook(caller.orgId, webhookId, fields)));
}

export async function deleteWebhook(caller: Principal, webhookId: number): Promise<void> {
  requireAdmin(caller);
  await refusedAs(refusals, () => store.deleteWebhook(caller.orgId, webhookId));
}

/**
 * A new signing secret, shown once. The previous one still signs deliveries (a second signature in
 * `webhook-signature`) for `PREVIOUS_SECRET_HOURS`, so a receiver can switch without losing any.
 */
export async function rotateWebhookSecret(caller: Principal, webhookId: number): Promise<Webhook & { secret: string }> {
  const current = await ownWebhook(caller, webhookId);
  const now = Date.now();
  const secret = generateSecret();
  const written = await refusedAs(refusals, () =>
    store.updateWebhook(caller.orgId, webhookId, {
      secret,
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(now + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString(),
      updated_at: new Date(now).toISOString(),
    }),
  );
  const rotated = store.toWebhook(written);
  return sameVersion(rotated, { ...rotated, secret });
}

/** The most recent deliveries of an endpoint, newest first. */
export async function listDeliveries(caller: Principal, webhookId: number): Promise<Delivery[]> {
  requireAdmin(caller);
  // The endpoint and its deliveries live in two partitions: read side by side, one round trip.
  const [, deliveries] = await Promise.all([
    ownWebhook(caller, webhookId),
    store.recentDeliveries(caller.orgId, webhookId, RECENT_DELIVERIES),
  ]);
  return deliveries.map(store.toDelivery);
}

/**
 * Sends a finished delivery again (the same `webhook-id` and body; a fresh retry window). The
 * delivery becomes pending; the change feed sees that and queues its next attempt. A delivery still
 * pending is being delivered already: 422.
 */
export async function redeliver(caller: Principal, webhookId: number, deliveryId: string): Promise<Delivery> {
  if (!/^msg_[\w-]{1,64}$/.test(deliveryId)) {
    await ownWebhook(caller, webhookId);
    throw new NotFoundError('Delivery');
  }
  requireAdmin(caller);
  // The endpoint and the delivery in one call: a missing endpoint is still a 404 for the endpoint.
  const { webhook, delivery } = await store.getWebhookWithDelivery(caller.orgId, webhookId, deliveryId);
  if (!webhook) throw new NotFoundError('Webhook');
  if (!delivery) throw new NotFoundError('Delivery');
  if (delivery.status === 'pending') throw new TransitionError('The delivery is still pending: it is being delivered');
  const written = await refusedAs(refusals, () => store.requestRedelivery(caller.orgId, webhookId, deliveryId, delivery.status));
  return store.toDelivery(written);
}

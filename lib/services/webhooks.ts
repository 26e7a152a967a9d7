import { deliveryIdPattern } from '../vocabulary/ids.ts';

import { config } from '../config.ts';

import type { PageRequest } from '../db/core/list.ts';
import * as store from '../db/webhooks/webhooks.ts';
import type { Delivery, Webhook, WebhookUpdate } from '../schemas/webhooks.ts';
import { endpointRefusal } from '../model/address-guard.ts';

import { ForbiddenError, NotFoundError, TransitionError, ValidationError } from '../vocabulary/errors.ts';

import type { Principal } from '../model/principal.ts';
import { rereadOnStale } from '../db/core/transactions.ts';

import { refusedAs, type Meanings } from './refusals.ts';

import { type WebhookRefusal } from '../db/core/refusals.ts';
import { toDelivery, toWebhook } from '../../lib/resources/organisation.ts';

/**
 * Endpoints and deliveries. Registering an endpoint and rotating its secret, the two operations
 * that make a signing secret, are in lib/services/webhook-secrets.ts: only their functions seal
 * secrets (and bundle the KMS client).
 */

/** Deliveries `GET …/deliveries` shows: the most recent ones. */
export const RECENT_DELIVERIES = 100;

/** How the data layer's refusals answer (shared with lib/services/webhook-secrets.ts). */
export const refusals = {
  [store.webhookRefusals.webhook]: () => new NotFoundError('Webhook'),
  [store.webhookRefusals.delivery]: () => new TransitionError('The delivery is still pending: it is being delivered'),
  [store.webhookRefusals.limit]: () =>
    new ValidationError([`webhooks: an organisation may have at most ${store.MAX_WEBHOOKS} endpoints`]),
} satisfies Meanings<WebhookRefusal>;

/** Webhooks are the organisation's integrations: admins only (403 for members, whatever the id). */
export function requireAdmin(caller: Principal) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may manage webhooks');
}

/** The caller's organisation's endpoint `webhookId` (admins only), or 404. */
export async function ownWebhook(caller: Principal, webhookId: number): Promise<store.StoredWebhook> {
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
export function checkEndpoint(url: string) {
  const refusal = endpointRefusal(new URL(url), config().webhooks.allowLoopback);
  if (refusal) throw new ValidationError([`url is refused: ${refusal}`]);
}

/**
 * What an endpoint stores of a filter as written (lib/model/webhook-filters.ts), `@me` read as
 * `me`. The grammar is loaded when a request first gives a filter, not when the function starts.
 */
export async function webhookFilterFields(text: string | null, me: number) {
  if (text === null) return { filter: null, filterSelection: null };
  return (await import('../model/webhook-filters.ts')).webhookFilterFields(text, me);
}

export async function listWebhooks(caller: Principal, page: PageRequest) {
  requireAdmin(caller);
  const { page: result, total } = await store.listWebhooks(caller.orgId, page);
  return { page: result, items: result.items.map(toWebhook), total };
}

export async function getWebhook(caller: Principal, webhookId: number): Promise<Webhook> {
  return toWebhook((await ownWebhook(caller, webhookId)).stored);
}

/**
 * Changes an endpoint; `active: true` re-enables one the service disabled, clearing the reason. A
 * `filter` given (null included) replaces the stored one, `@me` read as the caller.
 */
export async function updateWebhook(caller: Principal, webhookId: number, changes: WebhookUpdate): Promise<Webhook> {
  const { filter, ...rest } = changes;
  requireAdmin(caller);
  const filterFields = filter === undefined ? {} : await webhookFilterFields(filter, caller.accountId);
  await ownWebhook(caller, webhookId);
  if (rest.url !== undefined) checkEndpoint(rest.url);
  const fields: Partial<store.WebhookFields> = { ...rest, ...filterFields, updatedAt: new Date().toISOString() };
  if (changes.active !== undefined) {
    fields.disabledReason = null;
    fields.failingSince = null;
  }
  return toWebhook((await refusedAs(refusals, () => store.updateWebhook(caller.orgId, webhookId, fields))).stored);
}

/** Moves an endpoint into the organisation's trash (docs/trash.md); read first, so the trash holds it whole. */
export async function deleteWebhook(caller: Principal, webhookId: number): Promise<void> {
  requireAdmin(caller);
  await rereadOnStale(async () => {
    // The organisation with the endpoint (its trash retention), in the one read.
    const { webhook: current, org } = await store.getWebhookWithOrganisation(caller.orgId, webhookId);
    if (!current) throw new NotFoundError('Webhook');
    await refusedAs(refusals, () => store.trashWebhook(caller.orgId, current, caller.accountId, org));
  });
}

/** The most recent deliveries of an endpoint, newest first. */
export async function listDeliveries(caller: Principal, webhookId: number): Promise<Delivery[]> {
  requireAdmin(caller);
  // The endpoint and its deliveries live in two partitions: read side by side, one round trip.
  const [, deliveries] = await Promise.all([
    ownWebhook(caller, webhookId),
    store.recentDeliveries(caller.orgId, webhookId, RECENT_DELIVERIES),
  ]);
  return deliveries.map(toDelivery);
}

/**
 * Sends a finished delivery again (the same `webhook-id` and body; a fresh retry window). The
 * delivery becomes pending; the change feed sees that and queues its next attempt. A delivery still
 * pending is being delivered already: 422.
 */
export async function redeliver(caller: Principal, webhookId: number, deliveryId: string): Promise<Delivery> {
  if (!deliveryIdPattern.test(deliveryId)) {
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
  return toDelivery(written);
}

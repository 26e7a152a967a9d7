import { nextId } from '../db/core/sequences.ts';

import { sameVersion } from '../model/versions.ts';

import * as store from '../db/webhooks/webhooks.ts';
import type { Webhook, WebhookCreate } from '../schemas/webhooks.ts';
import { isSealed, secretBox } from '../aws/secret-box.ts';

import { generateSecret } from '../model/signing.ts';

import type { Principal } from '../model/principal.ts';
import { refusedAs } from './refusals.ts';

import { checkEndpoint, ownWebhook, refusals, requireAdmin, webhookFilterFields } from './webhooks.ts';
import { toWebhook } from '../../lib/resources/organisation.ts';

/**
 * The two operations that make a webhook signing secret: registering an endpoint and rotating its
 * secret. Each answers the new secret once and stores it sealed (lib/aws/secret-box.ts), bound
 * to its endpoint; neither ever opens a stored one. Apart from lib/services/webhooks.ts so that only
 * their two functions carry the secret box (and the KMS client).
 */

/** How long a rotated-out secret still signs deliveries, so receivers can switch without a gap. */
export const PREVIOUS_SECRET_HOURS = 24;

/** Registers an endpoint; the answer carries its signing secret, the only time it is shown. */
export async function createWebhook(caller: Principal, input: WebhookCreate): Promise<Webhook & { secret: string }> {
  requireAdmin(caller);
  checkEndpoint(input.url);
  const filter = await webhookFilterFields(input.filter ?? null, caller.accountId);
  const id = await nextId(caller.orgId, 'webhook');
  const secret = generateSecret();
  const now = new Date().toISOString();
  const item = {
    id,
    orgId: caller.orgId,
    url: input.url,
    events: input.events,
    active: input.active ?? true,
    disabledReason: null,
    ...filter,
    secret: await secretBox().seal(secret, { orgId: caller.orgId, webhookId: id }),
    createdAt: now,
    updatedAt: now,
  };
  await refusedAs(refusals, () => store.insertWebhook(caller.orgId, item));
  // Inserted at version 1 (lib/db/core/stamps.ts): the answer's ETag is usable with If-Match at once.
  const created = toWebhook(store.insertedWebhook(caller.orgId, id, item));
  return sameVersion(created, { ...created, secret });
}

/**
 * A new signing secret, shown once. The previous one still signs deliveries (a second signature in
 * `webhook-signature`) for `PREVIOUS_SECRET_HOURS`, so a receiver can switch without losing any.
 * The previous one is kept as stored (sealed already, nothing to open); a plaintext one, written
 * before secrets were sealed, is sealed on the way.
 */
export async function rotateWebhookSecret(caller: Principal, webhookId: number): Promise<Webhook & { secret: string }> {
  const current = await ownWebhook(caller, webhookId);
  const owner = { orgId: caller.orgId, webhookId };
  const now = Date.now();
  const secret = generateSecret();
  const [sealed, previous] = await Promise.all([
    secretBox().seal(secret, owner),
    isSealed(current.secret) ? current.secret : secretBox().seal(current.secret, owner),
  ]);
  const written = await refusedAs(refusals, () =>
    store.updateWebhook(caller.orgId, webhookId, {
      secret: sealed,
      previousSecret: previous,
      previousSecretExpiresAt: new Date(now + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString(),
      updatedAt: new Date(now).toISOString(),
    }),
  );
  const rotated = toWebhook(written.stored);
  return sameVersion(rotated, { ...rotated, secret });
}

/**
 * The upgrade path of `npm run admin -- webhooks:encrypt-secrets`: seals every secret (current and
 * previous) still stored in plaintext, on every endpoint or those of one organisation. Each
 * endpoint is written only if its secrets are still those read (a rotation meanwhile seals them
 * itself). Deliveries go on throughout: the delivery function reads either form.
 */
export async function sealPlaintextSecrets(orgId?: number): Promise<{ webhooks: number; sealed: number }> {
  let webhooks = 0;
  let sealed = 0;
  await store.scanPlaintextSecrets(orgId, async (items) => {
    for (const item of items) {
      webhooks++;
      const owner = { orgId: item.orgId, webhookId: item.id };
      const changes = [];
      for (const field of ['secret', 'previousSecret'] as const) {
        const from = item[field];
        if (typeof from === 'string' && !isSealed(from)) changes.push({ field, from, to: await secretBox().seal(from, owner) });
      }
      if (await store.replaceStoredSecrets(owner.orgId, owner.webhookId, changes)) sealed++;
    }
  });
  return { webhooks, sealed };
}

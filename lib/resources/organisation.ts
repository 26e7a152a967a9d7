import type { Account } from '../schemas/accounts.ts';
import type { Delivery, Webhook } from '../schemas/webhooks.ts';
import { accountItem } from '../db/organisation/accounts.ts';
import { webhookItem, type DeliveryFields } from '../db/webhooks/webhooks.ts';
import { withVersion } from '../db/core/versions.ts';

/** The REST API's accounts, webhook endpoints and deliveries, made from stored items as their declarations decode them (lib/db). */

export const toAccount = (record: object): Account => {
  const a = accountItem.decode(record);
  return { id: a.id, name: a.name, email: a.email, handle: a.handle, role: a.role, created_at: a.createdAt };
};

/** The resource from a stored endpoint (`record`: the item as stored). */
export const toWebhook = (record: object): Webhook => {
  const w = webhookItem.decode(record);
  return withVersion(
    {
      id: w.id,
      url: w.url,
      events: w.events,
      active: w.active,
      disabled_reason: w.disabledReason,
      filter: w.filter,
      created_at: w.createdAt,
      updated_at: w.updatedAt,
    },
    record,
  );
};

export const toDelivery = (d: DeliveryFields): Delivery => ({
  id: d.id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  response_code: d.responseCode,
  duration_ms: d.durationMs,
  error: d.error,
  next_attempt_at: d.nextAttemptAt,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
});

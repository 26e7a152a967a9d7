import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Selection } from '../../schemas/selection.ts';
import type { Delivery } from '../../schemas/webhooks.ts';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { collections, keys, listKeys } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import { scanPages } from '../core/query.ts';
import {
  addTo,
  putNew,
  getItem,
  batchGet,
  Refused,
  sentFields,
  STALE,
  transact,
  updateIf,
  updateResource,
} from '../core/transactions.ts';
import { trashPut, trashRemoval } from '../core/trash.ts';
import { VERSION_ATTRIBUTE } from '../core/versions.ts';
import { attribute, itemKind, type Attribute, type Fields } from '../core/item.ts';
import {
  organisationCounter,
  organisationItem,
  organisationOf,
  trashRetentionOf,
  type OrganisationFields,
} from '../organisation/organisation.ts';
import type { Lane } from '../../model/fairness.ts';

/**
 * Webhook endpoints live in the organisation's partition (`WEBHOOK#w`, counted on the organisation
 * as `webhooks_count`); their deliveries in a partition per endpoint (`ORG#o#W#w`, `DELIVERY#d`),
 * expiring after `DELIVERY_TTL_DAYS`. The signing secret is stored with the endpoint, sealed
 * (lib/aws/secret-box.ts: only the delivery function can open it, to sign); the API shows it
 * only when it is made.
 *
 * Refusal reasons: `webhook` (gone), `limit` (the organisation has as many endpoints as allowed),
 * `delivery` (not in the state a redelivery was decided on).
 */
export const webhookRefusals = { webhook: 'webhook', limit: 'limit', delivery: 'delivery' } as const;

/** Endpoints per organisation. */
export const MAX_WEBHOOKS = 20;
/** How long delivery records are kept. */
export const DELIVERY_TTL_DAYS = 30;

/** A string list stored whole (an endpoint's events); absent reads as none. */
const strings = (stored: string): Attribute<string[]> => ({
  stored,
  read: (v) => (Array.isArray(v) ? v.map(String) : []),
  write: (v) => v,
});

export const webhookItem = itemKind({
  type: 'webhook',
  key: { ...keys.webhook.placement, LSK: listKeys.webhook.placement },
  about: 'webhook endpoint (+ signing secret)',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    url: attribute.string('url'),
    events: strings('events'),
    active: attribute.boolean('active'),
    disabledReason: attribute.nullableString('disabled_reason'),
    /** The filter's canonical query (lib/model/webhook-filters.ts); absent on an endpoint written before filters: none. */
    filter: attribute.nullableString('filter'),
    /** The filter's JSON form, which the change feed evaluates (lib/webhooks/filter.ts); absent or null: no filter. */
    filterSelection: {
      stored: 'filter_selection',
      read: (v: unknown) => (v && typeof v === 'object' ? (v as Selection) : null),
      write: (v: Selection | null) => v,
    },
    /** The signing secret, sealed (`enc:…`); plaintext on an item written before secrets were sealed. */
    secret: attribute.string('secret'),
    /** The secret before the last rotation (stored as `secret` is), still signed with until it expires. */
    previousSecret: attribute.nullableString('previous_secret'),
    previousSecretExpiresAt: attribute.nullableString('previous_secret_expires_at'),
    /** Start of the current run of failed attempts (cleared by a success). */
    failingSince: attribute.nullableString('failing_since'),
    /** Its delivery lane and slow attempts in a row (lib/db/webhooks/delivery-lanes.ts keeps them; none: the fast lane). */
    lane: attribute.oneOf<Lane>('lane', 'fast'),
    slowAttempts: attribute.counter('slow_attempts'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});
export type WebhookFields = Fields<typeof webhookItem.attributes>;

/** An endpoint as read: its fields, and the item they were read from (its version is the ETag's; the trash keeps it whole). */
export interface StoredWebhook extends WebhookFields {
  stored: Record<string, unknown>;
}

const webhookOf = (item: Record<string, unknown>): StoredWebhook => ({ ...webhookItem.decode(item), stored: item });

export const deliveryItem = itemKind({
  type: 'delivery',
  key: { ...keys.delivery.placement, LSK: listKeys.delivery.placement },
  about: 'webhook delivery (TTL `expires_at`)',
  attributes: {
    id: attribute.string('id'),
    orgId: attribute.number('org_id'),
    webhookId: attribute.number('webhook_id'),
    event: attribute.string('event'),
    status: attribute.oneOf<Delivery['status']>('status'),
    attempts: attribute.counter('attempts'),
    responseCode: attribute.nullableNumber('response_code'),
    durationMs: attribute.nullableNumber('duration_ms'),
    error: attribute.nullableString('error'),
    nextAttemptAt: attribute.nullableString('next_attempt_at'),
    /** The signed body, exactly as sent (a redelivery sends it again). */
    payload: attribute.string('payload'),
    firstAttemptAt: attribute.nullableString('first_attempt_at'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
    expiresAt: attribute.expiry(),
  },
});
export type DeliveryFields = Fields<typeof deliveryItem.attributes>;

/** A webhook just inserted (`insertWebhook`) as stored: at version 1, its ETag usable with `If-Match` at once. */
export const insertedWebhook = (orgId: number, webhookId: number, fields: Partial<WebhookFields>): object => ({
  ...keys.webhook(orgId, webhookId),
  ...webhookItem.encode(fields),
  version: 1,
});

/** Creates an endpoint and counts it on the organisation, refused past `MAX_WEBHOOKS`. */
export async function insertWebhook(orgId: number, webhook: Partial<WebhookFields> & Pick<WebhookFields, 'id'>): Promise<void> {
  await transact([
    addTo(keys.org(orgId), organisationCounter.webhooks, 1, webhookRefusals.limit, MAX_WEBHOOKS),
    putNew({
      ...keys.webhook(orgId, webhook.id),
      LSK: listKeys.webhook(webhook.id),
      type: webhookItem.type,
      ...webhookItem.encode(webhook),
    }),
  ]);
}

export async function getWebhookItem(orgId: number, webhookId: number): Promise<StoredWebhook | undefined> {
  const item = await getItem(keys.webhook(orgId, webhookId));
  return item && webhookOf(item);
}

/**
 * An endpoint with its organisation, in one consistent BatchGetItem: what its delete reads (the
 * organisation's trash retention: `trashRetentionOf`), at no call more than `getWebhookItem`.
 */
export async function getWebhookWithOrganisation(
  orgId: number,
  webhookId: number,
): Promise<{ webhook?: StoredWebhook | undefined; org?: OrganisationFields | undefined }> {
  const [webhook, org] = await batchGet([keys.webhook(orgId, webhookId), keys.org(orgId)]);
  return { webhook: webhook && webhookOf(webhook), org: organisationOf(org) };
}

/** An endpoint and one of its deliveries, in one consistent BatchGetItem (a redelivery reads both). */
export async function getWebhookWithDelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
): Promise<{ webhook?: StoredWebhook | undefined; delivery?: DeliveryFields | undefined }> {
  const [webhook, delivery] = await batchGet([keys.webhook(orgId, webhookId), keys.delivery(orgId, webhookId, deliveryId)]);
  return { webhook: webhook && webhookOf(webhook), delivery: delivery && deliveryItem.decode(delivery) };
}

/** Every endpoint of an organisation (at most `MAX_WEBHOOKS`): one consistent Query. */
export async function allWebhooks(orgId: number): Promise<StoredWebhook[]> {
  const c = collections.webhooks(orgId);
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': c.pk, ':prefix': c.prefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map(webhookOf);
}

/** A page of the organisation's endpoints (stored items: `toWebhook` answers each), with their count. */
export async function listWebhooks(orgId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.webhooks(orgId), page, [keys.org(orgId)]);
  return { page: result, total: organisationOf(related[0])?.webhooksCount ?? 0 };
}

/**
 * Sets fields of an endpoint (only those given; `null` removes nothing, it is a value). Returns the
 * endpoint as written; refused as `webhook` when it is gone.
 */
export async function updateWebhook(orgId: number, webhookId: number, fields: Partial<WebhookFields>): Promise<StoredWebhook> {
  const written = await updateResource(
    { Key: keys.webhook(orgId, webhookId), ...webhookItem.update({ set: sentFields(fields), if: { exists: true } }) },
    webhookRefusals.webhook,
  );
  return webhookOf(written);
}

/**
 * Deletes endpoint `current` (as read) into the organisation's trash, in one transaction: the
 * endpoint (only while it is as read: else `stale`, read again), `webhooks_count`, and the trash item.
 */
export async function trashWebhook(
  orgId: number,
  current: StoredWebhook,
  deletedBy: number,
  /** The organisation as read with the endpoint (its trash retention). */
  org: OrganisationFields | undefined,
): Promise<void> {
  const { stored } = current;
  await transact([
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.webhook(orgId, current.id),
          ...(stored[VERSION_ATTRIBUTE] === undefined
            ? { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#v)' }
            : {
                ConditionExpression: 'attribute_exists(PK) AND #v = :v',
                ExpressionAttributeValues: { ':v': stored[VERSION_ATTRIBUTE] },
              }),
          ExpressionAttributeNames: { '#v': VERSION_ATTRIBUTE },
        },
      },
      reason: STALE,
      resource: true,
    },
    organisationItem.updateAt(keys.org(orgId), { add: { webhooksCount: -1 } }),
    trashPut(orgId, 'webhook', stored, current.url, deletedBy, trashRetentionOf(org)),
  ]);
}

/**
 * Brings trashed endpoint `stored` back whole (same id, secret, filter and version), in one
 * transaction: the endpoint (its id is never reused), `webhooks_count` within the limit, and the
 * trash item's delete (refused `trashed` when it is gone since the read).
 */
export async function restoreWebhook(orgId: number, stored: Record<string, unknown>, deletedAt: string): Promise<void> {
  await transact([
    addTo(keys.org(orgId), organisationCounter.webhooks, 1, webhookRefusals.limit, MAX_WEBHOOKS),
    putNew(stored),
    ...trashRemoval(orgId, String(stored.SK), deletedAt, 'restored'),
  ]);
}

/** A delivery not yet attempted: pending, no attempt, no answer, due at `at`. */
export function pendingDelivery(d: {
  id: string;
  orgId: number;
  webhookId: number;
  event: string;
  payload: string;
  at: string;
}): Omit<DeliveryFields, 'expiresAt'> {
  return {
    id: d.id,
    orgId: d.orgId,
    webhookId: d.webhookId,
    event: d.event,
    status: 'pending',
    attempts: 0,
    responseCode: null,
    durationMs: null,
    error: null,
    nextAttemptAt: d.at,
    payload: d.payload,
    firstAttemptAt: null,
    createdAt: d.at,
    updatedAt: d.at,
  };
}

/**
 * Records a new delivery unless one with its id exists already (a replayed stream record). Returns
 * the stored delivery: the new one, or the one found.
 */
export async function insertDelivery(
  fields: Omit<DeliveryFields, 'expiresAt'>,
): Promise<{ created: boolean; item: DeliveryFields }> {
  const delivery = {
    ...fields,
    expiresAt: Math.floor(Date.parse(fields.createdAt) / 1000) + DELIVERY_TTL_DAYS * 86_400,
  };
  const key = keys.delivery(delivery.orgId, delivery.webhookId, delivery.id);
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          LSK: listKeys.delivery(Date.parse(delivery.createdAt), delivery.id),
          type: deliveryItem.type,
          ...deliveryItem.encode(delivery),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { created: true, item: delivery };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    const found = await getDelivery(delivery.orgId, delivery.webhookId, delivery.id);
    return { created: false, item: found ?? delivery };
  }
}

export async function getDelivery(orgId: number, webhookId: number, deliveryId: string): Promise<DeliveryFields | undefined> {
  const item = await getItem(keys.delivery(orgId, webhookId, deliveryId));
  return item && deliveryItem.decode(item);
}

/** The delivery a stream record's image holds, or undefined for an item of another kind. */
export function deliveryOfImage(image: { type?: unknown }): DeliveryFields | undefined {
  return image.type === deliveryItem.type ? deliveryItem.decode(image) : undefined;
}

/** Sets fields of a delivery (the outcome of an attempt). */
export async function updateDelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
  fields: Partial<DeliveryFields>,
): Promise<void> {
  await deliveryItem.updateNow(keys.delivery(orgId, webhookId, deliveryId), { set: sentFields(fields), if: { exists: true } });
}

/** Claims attempt `n` of a pending delivery: a duplicate message (SQS is at least once) claims nothing. */
export const claimDeliveryAttempt = (
  at: { orgId: number; webhookId: number; deliveryId: string; attempt: number },
  now: string,
): Promise<boolean> =>
  updateIf({
    Key: keys.delivery(at.orgId, at.webhookId, at.deliveryId),
    ...deliveryItem.update({
      set: { attempts: at.attempt, updatedAt: now },
      if: { equals: { status: 'pending', attempts: at.attempt - 1 } },
    }),
  });

/** The most recent deliveries of an endpoint, newest first (up to `limit`). */
export async function recentDeliveries(orgId: number, webhookId: number, limit: number): Promise<DeliveryFields[]> {
  const c = collections.deliveries(orgId, webhookId);
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': c.pk, ':prefix': c.prefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((i) => deliveryItem.decode(i));
}

/**
 * Makes a finished delivery pending again, conditioned on the status it was read with: the change
 * feed's filter passes exactly this transition and queues the next attempt.
 */
export async function requestRedelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
  from: DeliveryFields['status'],
): Promise<DeliveryFields> {
  const now = new Date().toISOString();
  try {
    const out = await deliveryItem.updateNow(
      keys.delivery(orgId, webhookId, deliveryId),
      {
        set: { status: 'pending', firstAttemptAt: null, nextAttemptAt: now, updatedAt: now },
        if: { equals: { status: from } },
      },
      undefined,
      'ALL_NEW',
    );
    return deliveryItem.decode(out.Attributes ?? {});
  } catch (err) {
    if (isConditionFailed(err)) throw new Refused(webhookRefusals.delivery);
    throw err;
  }
}

/** The prefix of a sealed secret (lib/aws/secret-box.ts); any other stored secret is plaintext. */
const SEALED_PREFIX = 'enc:';

/**
 * Endpoints whose secret, or previous secret, is still stored in plaintext (written before secrets
 * were sealed), page by page: a Scan of the table (or of one organisation's items), for the
 * `webhooks:encrypt-secrets` upgrade command only.
 */
export async function scanPlaintextSecrets(orgId: number | undefined, onPage: (items: StoredWebhook[]) => Promise<void>) {
  await scanPages(
    {
      FilterExpression:
        '#type = :webhook AND (NOT begins_with(secret, :sealed) OR ' +
        '(attribute_type(previous_secret, :string) AND NOT begins_with(previous_secret, :sealed)))' +
        (orgId === undefined ? '' : ' AND org_id = :org'),
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':webhook': 'webhook',
        ':sealed': SEALED_PREFIX,
        ':string': 'S',
        ...(orgId === undefined ? {} : { ':org': orgId }),
      },
    },
    (items) => onPage(items.map(webhookOf)),
  );
}

/**
 * Replaces stored secrets (`secret`, `previous_secret`) of an endpoint, each only if it still holds
 * the value it was read with. Returns false, writing nothing, when the endpoint is gone or one of
 * them changed meanwhile (a rotation, which seals on its own).
 */
export async function replaceStoredSecrets(
  orgId: number,
  webhookId: number,
  changes: { field: 'secret' | 'previousSecret'; from: string; to: string }[],
): Promise<boolean> {
  if (changes.length === 0) return true;
  const set: Partial<WebhookFields> = {};
  const was: Partial<WebhookFields> = {};
  for (const change of changes) {
    set[change.field] = change.to;
    was[change.field] = change.from;
  }
  return updateIf({ Key: keys.webhook(orgId, webhookId), ...webhookItem.update({ set, if: { equals: was } }) });
}

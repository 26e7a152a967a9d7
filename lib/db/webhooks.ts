import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Selection } from '../schemas/selection.ts';
import type { Delivery, Webhook } from '../schemas/webhooks.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { collections, keys, listKeys } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import { scanPages } from './query.ts';
import {
  addTo,
  putNew,
  getItem,
  batchGet,
  Refused,
  setAssignments,
  STALE,
  transact,
  updateIf,
  updateResource,
} from './transactions.ts';
import { trashPut, trashRemoval } from './trash.ts';
import { VERSION_ATTRIBUTE, withVersion } from './versions.ts';

/**
 * Webhook endpoints live in the organisation's partition (`WEBHOOK#w`, counted on the organisation
 * as `webhooks_count`); their deliveries in a partition per endpoint (`ORG#o#W#w`, `DELIVERY#d`),
 * expiring after `DELIVERY_TTL_DAYS`. The signing secret is stored with the endpoint, sealed
 * (lib/db/secret-box.ts: only the delivery function can open it, to sign); the API shows it
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

export interface WebhookItem extends Omit<Webhook, 'filter'> {
  org_id: number;
  /** The filter's canonical query; absent on an endpoint written before filters (none). */
  filter?: string | null;
  /** The signing secret, sealed (`enc:…`); plaintext on an item written before secrets were sealed. */
  secret: string;
  /** The secret before the last rotation (stored as `secret` is), still signed with until `previous_secret_expires_at`. */
  previous_secret?: string | null;
  previous_secret_expires_at?: string | null;
  /** Start of the current run of failed attempts (cleared by a success). */
  failing_since?: string | null;
  /**
   * The filter's JSON form, which the change feed evaluates (lib/webhooks/filter.ts); `filter` is
   * its canonical query (lib/model/webhook-filters.ts). Absent or null: no filter.
   */
  filter_selection?: Selection | null;
}

export interface DeliveryItem extends Delivery {
  org_id: number;
  webhook_id: number;
  /** The signed body, exactly as sent (a redelivery sends it again). */
  payload: string;
  first_attempt_at?: string | null;
}

/** A webhook just inserted (`insertWebhook`) as answered: at version 1, its ETag usable with `If-Match` at once. */
export const insertedWebhook = (orgId: number, webhookId: number, item: object): Webhook =>
  toWebhook({ ...keys.webhook(orgId, webhookId), ...item, version: 1 });

export const toWebhook = (record: object): Webhook => {
  const item = record as Record<string, unknown>;
  return withVersion(
    {
      id: Number(item.id),
      url: String(item.url),
      events: (item.events as string[] | undefined) ?? [],
      active: item.active === true,
      disabled_reason: (item.disabled_reason as string | null | undefined) ?? null,
      filter: (item.filter as string | null | undefined) ?? null,
      created_at: String(item.created_at),
      updated_at: String(item.updated_at),
    },
    record,
  );
};

export const toDelivery = (record: object): Delivery => {
  const item = record as Record<string, unknown>;
  const nullable = <T>(v: unknown) => (v as T | null | undefined) ?? null;
  return {
    id: String(item.id),
    event: String(item.event),
    status: item.status as Delivery['status'],
    attempts: Number(item.attempts ?? 0),
    response_code: nullable<number>(item.response_code),
    duration_ms: nullable<number>(item.duration_ms),
    error: nullable<string>(item.error),
    next_attempt_at: nullable<string>(item.next_attempt_at),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
  };
};

/** Creates an endpoint and counts it on the organisation, refused past `MAX_WEBHOOKS`. */
export async function insertWebhook(orgId: number, webhook: WebhookItem): Promise<void> {
  await transact([
    addTo(keys.org(orgId), 'webhooks_count', 1, webhookRefusals.limit, MAX_WEBHOOKS),
    putNew({ ...keys.webhook(orgId, webhook.id), LSK: listKeys.webhook(webhook.id), type: 'webhook', ...webhook }),
  ]);
}

export async function getWebhookItem(orgId: number, webhookId: number): Promise<WebhookItem | undefined> {
  return getItem<WebhookItem>(keys.webhook(orgId, webhookId));
}

/** An endpoint and one of its deliveries, in one consistent BatchGetItem (a redelivery reads both). */
export async function getWebhookWithDelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
): Promise<{ webhook?: WebhookItem; delivery?: DeliveryItem }> {
  const [webhook, delivery] = await batchGet([keys.webhook(orgId, webhookId), keys.delivery(orgId, webhookId, deliveryId)]);
  return { webhook: webhook as WebhookItem | undefined, delivery: delivery as DeliveryItem | undefined };
}

/** Every endpoint of an organisation (at most `MAX_WEBHOOKS`): one consistent Query. */
export async function allWebhooks(orgId: number): Promise<WebhookItem[]> {
  const c = collections.webhooks(orgId);
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': c.pk, ':prefix': c.prefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as WebhookItem[];
}

export async function listWebhooks(orgId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith<WebhookItem>(collections.webhooks(orgId), page, [keys.org(orgId)]);
  return { page: result, total: Number(related[0]?.webhooks_count ?? 0) };
}

/**
 * Sets fields of an endpoint (only those given; `null` removes nothing, it is a value). Returns the
 * endpoint as written; refused as `webhook` when it is gone.
 */
export async function updateWebhook(orgId: number, webhookId: number, fields: Partial<WebhookItem>): Promise<WebhookItem> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = setAssignments(fields, names, values);
  return updateResource<WebhookItem>(
    {
      Key: keys.webhook(orgId, webhookId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    webhookRefusals.webhook,
  );
}

/** Deletes an endpoint and uncounts it; its deliveries expire on their own. */
/**
 * Deletes endpoint `current` (as read) into the organisation's trash, in one transaction: the
 * endpoint (only while it is as read: else `stale`, read again), `webhooks_count`, and the trash item.
 */
export async function trashWebhook(orgId: number, current: WebhookItem, deletedBy: number): Promise<void> {
  const stored = current as unknown as Record<string, unknown>;
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
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.org(orgId),
          UpdateExpression: 'ADD webhooks_count :minus',
          ExpressionAttributeValues: { ':minus': -1 },
        },
      },
    },
    trashPut(orgId, 'webhook', stored, current.url, deletedBy),
  ]);
}

/**
 * Brings trashed endpoint `stored` back whole (same id, secret, filter and version), in one
 * transaction: the endpoint (its id is never reused), `webhooks_count` within the limit, and the
 * trash item's delete (refused `trashed` when it is gone since the read).
 */
export async function restoreWebhook(orgId: number, stored: Record<string, unknown>): Promise<void> {
  await transact([
    addTo(keys.org(orgId), 'webhooks_count', 1, webhookRefusals.limit, MAX_WEBHOOKS),
    putNew(stored),
    trashRemoval(orgId, String(stored.SK)),
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
}): DeliveryItem {
  return {
    id: d.id,
    org_id: d.orgId,
    webhook_id: d.webhookId,
    event: d.event,
    status: 'pending',
    attempts: 0,
    response_code: null,
    duration_ms: null,
    error: null,
    next_attempt_at: d.at,
    payload: d.payload,
    first_attempt_at: null,
    created_at: d.at,
    updated_at: d.at,
  };
}

/**
 * Records a new delivery unless one with its id exists already (a replayed stream record). Returns
 * the stored delivery: the new one, or the one found.
 */
export async function insertDelivery(delivery: DeliveryItem): Promise<{ created: boolean; item: DeliveryItem }> {
  const key = keys.delivery(delivery.org_id, delivery.webhook_id, delivery.id);
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          LSK: listKeys.delivery(Date.parse(delivery.created_at), delivery.id),
          type: 'delivery',
          ...delivery,
          expires_at: Math.floor(Date.parse(delivery.created_at) / 1000) + DELIVERY_TTL_DAYS * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { created: true, item: delivery };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    const found = await getDelivery(delivery.org_id, delivery.webhook_id, delivery.id);
    return { created: false, item: found ?? delivery };
  }
}

export async function getDelivery(orgId: number, webhookId: number, deliveryId: string): Promise<DeliveryItem | undefined> {
  return getItem<DeliveryItem>(keys.delivery(orgId, webhookId, deliveryId));
}

/** Sets fields of a delivery (the outcome of an attempt). */
export async function updateDelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
  fields: Partial<DeliveryItem>,
): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = setAssignments(fields, names, values);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.delivery(orgId, webhookId, deliveryId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/** Claims attempt `n` of a pending delivery: a duplicate message (SQS is at least once) claims nothing. */
export const claimDeliveryAttempt = (
  at: { orgId: number; webhookId: number; deliveryId: string; attempt: number },
  now: string,
): Promise<boolean> =>
  updateIf({
    Key: keys.delivery(at.orgId, at.webhookId, at.deliveryId),
    UpdateExpression: 'SET attempts = :n, updated_at = :now',
    ConditionExpression: '#status = :pending AND attempts = :previous',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':n': at.attempt, ':previous': at.attempt - 1, ':pending': 'pending', ':now': now },
  });

/** The most recent deliveries of an endpoint, newest first (up to `limit`). */
export async function recentDeliveries(orgId: number, webhookId: number, limit: number): Promise<DeliveryItem[]> {
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
  return (out.Items ?? []) as DeliveryItem[];
}

/**
 * Makes a finished delivery pending again, conditioned on the status it was read with: the change
 * feed's filter passes exactly this transition and queues the next attempt.
 */
export async function requestRedelivery(
  orgId: number,
  webhookId: number,
  deliveryId: string,
  from: DeliveryItem['status'],
): Promise<DeliveryItem> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(orgId, webhookId, deliveryId),
        UpdateExpression: 'SET #status = :pending, first_attempt_at = :null, next_attempt_at = :now, updated_at = :now',
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':null': null, ':now': new Date().toISOString(), ':from': from },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as DeliveryItem;
  } catch (err) {
    if (isConditionFailed(err)) throw new Refused(webhookRefusals.delivery);
    throw err;
  }
}

/** The prefix of a sealed secret (lib/db/secret-box.ts); any other stored secret is plaintext. */
const SEALED_PREFIX = 'enc:';

/**
 * Endpoints whose secret, or previous secret, is still stored in plaintext (written before secrets
 * were sealed), page by page: a Scan of the table (or of one organisation's items), for the
 * `webhooks:encrypt-secrets` upgrade command only.
 */
export async function scanPlaintextSecrets(orgId: number | undefined, onPage: (items: WebhookItem[]) => Promise<void>) {
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
    (items) => onPage(items as unknown as WebhookItem[]),
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
  changes: { field: 'secret' | 'previous_secret'; from: string; to: string }[],
): Promise<boolean> {
  if (changes.length === 0) return true;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions: string[] = [];
  for (const [i, change] of changes.entries()) {
    names[`#f${i}`] = change.field;
    values[`:from${i}`] = change.from;
    values[`:to${i}`] = change.to;
    sets.push(`#f${i} = :to${i}`);
    conditions.push(`#f${i} = :from${i}`);
  }
  return updateIf({
    Key: keys.webhook(orgId, webhookId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

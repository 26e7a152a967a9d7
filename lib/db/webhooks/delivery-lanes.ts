import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Lane } from '../../model/fairness.ts';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { attribute, itemKind } from '../core/item.ts';
import { keys } from '../core/keys.ts';
import { addToExisting, updateIf } from '../core/transactions.ts';
import { webhookItem } from './webhooks.ts';

/**
 * The bookkeeping of fair delivery (lib/model/fairness.ts): the attempts in flight of each
 * organisation and of each of its endpoints per lane (one counter item), and each endpoint's slow
 * attempts in a row and lane (two attributes of the webhook item, written without touching its
 * version: they are not the admin's).
 */

/** Where an attempt holds its places: its organisation's share of the lane, its endpoint's share of that. */
export interface Places {
  orgId: number;
  webhookId: number;
  lane: Lane;
}

/**
 * An organisation's attempts in flight in a lane, and when they last changed. Each of its endpoints'
 * own count is an attribute of the same item (`endpointInFlight`), so one write takes both places.
 */
export const inFlightLaneItem = itemKind({
  key: keys.deliveriesInFlight.placement,
  about: 'webhook attempts in flight in a lane (the caps)',
  attributes: {
    inFlight: attribute.counter('in_flight'),
    /** Milliseconds since the epoch (a counter never written reads 0: long ago). */
    changedAt: attribute.counter('changed_at'),
  },
});

/** Where the lane's item counts an endpoint's attempts in flight: an attribute per endpoint. */
const ENDPOINT_PREFIX = 'endpoint_';
const endpointInFlight = (webhookId: number) => `${ENDPOINT_PREFIX}${webhookId}`;

/** The stored names every update of a lane's counts names, with its endpoint's as `#e`. */
const laneNames = (webhookId: number): Record<string, string> => ({
  '#n': inFlightLaneItem.stored('inFlight'),
  '#at': inFlightLaneItem.stored('changedAt'),
  '#e': endpointInFlight(webhookId),
});

/**
 * Takes one place of the organisation in the lane and one of the endpoint (caps `caps.org` and
 * `caps.endpoint`) in one conditional write, or neither: true when taken. A counter last changed
 * more than `staleAfterMs` ago counts no live attempt (every attempt gives its places back within
 * its timeout), so places an attempt never gave back (its function crashed or timed out) are held
 * no longer than that: the next attempt starts the counts afresh.
 */
export async function takePlaces(
  places: Places,
  caps: { org: number; endpoint: number },
  now: number,
  staleAfterMs: number,
): Promise<boolean> {
  const Key = keys.deliveriesInFlight(places.orgId, places.lane);
  const endpoint = endpointInFlight(places.webhookId);
  let old: Record<string, unknown> | undefined;
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #e = if_not_exists(#e, :zero) + :one, #at = :now',
        ConditionExpression: '(attribute_not_exists(#n) OR #n < :org) AND (attribute_not_exists(#e) OR #e < :endpoint)',
        ExpressionAttributeNames: laneNames(places.webhookId),
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': now, ':org': caps.org, ':endpoint': caps.endpoint },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    // The refusal carries the item as DynamoDB attribute values (the document client leaves it so).
    const item = (err as { Item?: Record<string, AttributeValue> }).Item;
    old = item ? unmarshall(item) : undefined;
  }
  if (!old) return false;
  const changedAt = inFlightLaneItem.field(old, 'changedAt');
  if (changedAt >= now - staleAfterMs) return false;
  // Stale: afresh, with this attempt's places only (unless another attempt got there first).
  const others = Object.keys(old).filter((name) => name.startsWith(ENDPOINT_PREFIX) && name !== endpoint);
  const names = laneNames(places.webhookId);
  others.forEach((name, i) => (names[`#o${i}`] = name));
  return updateIf({
    Key,
    UpdateExpression:
      'SET #n = :one, #e = :one, #at = :now' + (others.length ? ` REMOVE ${others.map((_, i) => `#o${i}`).join(', ')}` : ''),
    ConditionExpression: '#at = :seen',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':one': 1, ':now': now, ':seen': changedAt },
  });
}

/** Gives both places back (never below zero: a stale counter may have been started afresh meanwhile). */
export async function giveBackPlaces(places: Places, now: number): Promise<void> {
  await updateIf({
    Key: keys.deliveriesInFlight(places.orgId, places.lane),
    UpdateExpression: 'SET #n = #n - :one, #e = #e - :one, #at = :now',
    ConditionExpression: '#n > :zero AND #e > :zero',
    ExpressionAttributeNames: laneNames(places.webhookId),
    ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':now': now },
  });
}

/** Counts one more slow attempt of the endpoint; returns its slow attempts in a row. */
export async function countSlowAttempt(orgId: number, webhookId: number): Promise<number> {
  // Deleted meanwhile: none.
  return (await addToExisting(keys.webhook(orgId, webhookId), webhookItem.stored('slowAttempts'), 1)) ?? 0;
}

/** Puts the endpoint in `lane` with `slowAttempts` slow attempts in a row. */
export async function setLane(orgId: number, webhookId: number, lane: Lane, slowAttempts: number): Promise<void> {
  // A webhook deleted meanwhile has no lane to set.
  await updateIf({
    Key: keys.webhook(orgId, webhookId),
    ...webhookItem.update({ set: { lane, slowAttempts }, if: { exists: true } }),
  });
}

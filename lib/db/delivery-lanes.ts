import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Lane } from '../model/fairness.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { keys } from './keys.ts';
import { addToExisting, updateIf } from './transactions.ts';

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

/** The endpoint's count: an attribute of the organisation's counter item, so one write takes both places. */
const endpointAttribute = (webhookId: number) => `endpoint_${webhookId}`;

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
  const endpoint = endpointAttribute(places.webhookId);
  let old: Record<string, unknown> | undefined;
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression:
          'SET in_flight = if_not_exists(in_flight, :zero) + :one, #e = if_not_exists(#e, :zero) + :one, changed_at = :now',
        ConditionExpression:
          '(attribute_not_exists(in_flight) OR in_flight < :org) AND (attribute_not_exists(#e) OR #e < :endpoint)',
        ExpressionAttributeNames: { '#e': endpoint },
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
  const changedAt = Number(old?.changed_at ?? 0);
  if (!old || changedAt >= now - staleAfterMs) return false;
  // Stale: afresh, with this attempt's places only (unless another attempt got there first).
  const others = Object.keys(old).filter((name) => name.startsWith('endpoint_') && name !== endpoint);
  const names: Record<string, string> = { '#e': endpoint };
  others.forEach((name, i) => (names[`#o${i}`] = name));
  return updateIf({
    Key,
    UpdateExpression:
      'SET in_flight = :one, #e = :one, changed_at = :now' +
      (others.length ? ` REMOVE ${others.map((_, i) => `#o${i}`).join(', ')}` : ''),
    ConditionExpression: 'changed_at = :seen',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':one': 1, ':now': now, ':seen': changedAt },
  });
}

/** Gives both places back (never below zero: a stale counter may have been started afresh meanwhile). */
export async function giveBackPlaces(places: Places, now: number): Promise<void> {
  await updateIf({
    Key: keys.deliveriesInFlight(places.orgId, places.lane),
    UpdateExpression: 'SET in_flight = in_flight - :one, #e = #e - :one, changed_at = :now',
    ConditionExpression: 'in_flight > :zero AND #e > :zero',
    ExpressionAttributeNames: { '#e': endpointAttribute(places.webhookId) },
    ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':now': now },
  });
}

/** Counts one more slow attempt of the endpoint; returns its slow attempts in a row. */
export async function countSlowAttempt(orgId: number, webhookId: number): Promise<number> {
  // Deleted meanwhile: none.
  return (await addToExisting(keys.webhook(orgId, webhookId), 'slow_attempts', 1)) ?? 0;
}

/** Puts the endpoint in `lane` with `slowAttempts` slow attempts in a row. */
export async function setLane(orgId: number, webhookId: number, lane: Lane, slowAttempts: number): Promise<void> {
  // A webhook deleted meanwhile has no lane to set.
  await updateIf({
    Key: keys.webhook(orgId, webhookId),
    UpdateExpression: 'SET #lane = :lane, slow_attempts = :n',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#lane': 'lane' },
    ExpressionAttributeValues: { ':lane': lane, ':n': slowAttempts },
  });
}

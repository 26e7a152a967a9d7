import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { currentActor } from '../../context/actor.ts';
import type { Attribute } from './item.ts';
import { VERSION_ATTRIBUTE } from './versions.ts';

/**
 * What every write made for a request carries besides its own fields: the item's `version`
 * (lib/db/core/versions.ts) moved by one, and the request's actor (lib/context/actor.ts) as
 * `updated_by`, so that the table's stream tells who made each change.
 */

/** The attribute the actor is stamped in. */
export const ACTOR_ATTRIBUTE = 'updated_by';

/** The stamped actor, as an attribute of the kinds that declare it (a delete's marker: lib/db/core/deletions.ts). */
export const actorAttribute: Attribute<number | undefined, typeof ACTOR_ATTRIBUTE> = {
  stored: ACTOR_ATTRIBUTE,
  read: (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined),
  write: (v) => v,
};

/** Who wrote a stored item or a stream image: undefined when it was written outside a request. */
export const stampedActor = (item: Record<string, unknown>): number | undefined => actorAttribute.read(item[ACTOR_ATTRIBUTE]);

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Update = NonNullable<TransactItem['Update']>;

/**
 * An UpdateItem input (or transaction item) made for a request that also moves the item's
 * `version` by one (lib/db/core/versions.ts: any change a request makes moves it) and sets `updated_by`
 * to the request's actor.
 */
export function stampUpdate<
  U extends Pick<Update, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
>(update: U): U {
  // Only a request's writes move versions: the stream consumers' bookkeeping (activity counters)
  // changes nothing a resource shows, and must not make a client's ETag stale behind its back.
  if (!update.UpdateExpression || currentActor() === undefined) return update;
  return stampActor(bumpVersion(update));
}

/** Adds `version + 1` to the update's ADD clause (or an ADD clause of its own). */
export function bumpVersion<
  U extends Pick<Update, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
>(update: U): U {
  const bump = '#stamped_version :stamped_one';
  const expression = update.UpdateExpression ?? '';
  return {
    ...update,
    UpdateExpression: /(^|\s)ADD\s/.test(expression)
      ? expression.replace(/(^|\s)ADD\s/, `$1ADD ${bump}, `)
      : [expression, `ADD ${bump}`].filter(Boolean).join(' '),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#stamped_version': VERSION_ATTRIBUTE },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':stamped_one': 1 },
  };
}

function stampActor<U extends Pick<Update, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>(
  update: U,
): U {
  const actor = currentActor();
  if (actor === undefined || !update.UpdateExpression) return update;
  const assignment = '#updated_by_actor = :updated_by_actor';
  const expression = /(^|\s)SET\s/.test(update.UpdateExpression)
    ? update.UpdateExpression.replace(/(^|\s)SET\s/, `$1SET ${assignment}, `)
    : `SET ${assignment} ${update.UpdateExpression}`;
  return {
    ...update,
    UpdateExpression: expression,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#updated_by_actor': ACTOR_ATTRIBUTE },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':updated_by_actor': actor },
  };
}

/**
 * A transaction item made for a request, with the version and the actor stamped on its Put
 * (version 1) or Update (version + 1); deletes and checks unchanged.
 */
export function stampItem(item: TransactItem): TransactItem {
  const actor = currentActor();
  if (actor === undefined) return item;
  if (item.Put)
    return { ...item, Put: { ...item.Put, Item: { [VERSION_ATTRIBUTE]: 1, ...item.Put.Item, [ACTOR_ATTRIBUTE]: actor } } };
  if (item.Update) return { ...item, Update: stampUpdate(item.Update) };
  return item;
}

import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactItem } from './transactions.ts';

/**
 * Who is writing: the account a request acts for, set once around each route's handler
 * (lib/http/stack.ts). Every Put and Update the data layer sends in that scope stamps it on the
 * item as `updated_by`, in the same write, so the table's stream carries the actor of each change
 * (the change feed, lib/feed/, reads it from the new image). A delete leaves no image to stamp:
 * the feed reports deletes without an actor.
 */
const scope = new AsyncLocalStorage<number>();

/** Runs `fn` with `accountId` as the actor of every write it makes. */
export function asActor<T>(accountId: number, fn: () => Promise<T>): Promise<T> {
  return scope.run(accountId, fn);
}

/** The account writes are made for, if any (the admin CLI and the stream consumers write for no one). */
export const currentActor = (): number | undefined => scope.getStore();

/** The attribute the actor is stamped in. */
export const ACTOR_ATTRIBUTE = 'updated_by';

type Update = NonNullable<TransactItem['Update']>;

/** An UpdateItem input (or transaction item) that also sets `updated_by` to the current actor. */
export function stampUpdate<
  U extends Pick<Update, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
>(update: U): U {
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

/** A transaction item with the actor stamped on its Put or Update (deletes and checks unchanged). */
export function stampItem(item: TransactItem): TransactItem {
  const actor = currentActor();
  if (actor === undefined) return item;
  if (item.Put) return { ...item, Put: { ...item.Put, Item: { ...item.Put.Item, [ACTOR_ATTRIBUTE]: actor } } };
  if (item.Update) return { ...item, Update: stampUpdate(item.Update) };
  return item;
}

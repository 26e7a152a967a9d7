import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is writing: the account a request acts for, set once around each route's handler
 * (lib/http/stack.ts). Every Put and Update the data layer sends in that scope stamps it on the
 * item (lib/db/core/stamps.ts), in the same write, so the table's stream carries the actor of each
 * change (the change feed, lib/feed/, reads it from the new image). A delete leaves no image to
 * stamp: the feed reports deletes without an actor.
 */
const scope = new AsyncLocalStorage<number>();

/** Runs `fn` with `accountId` as the actor of every write it makes. */
export function asActor<T>(accountId: number, fn: () => Promise<T>): Promise<T> {
  return scope.run(accountId, fn);
}

/** The account writes are made for, if any (the admin CLI and the stream consumers write for no one). */
export const currentActor = (): number | undefined => scope.getStore();

import { currentActor } from '../../context/actor.ts';
import { tableName } from './client.ts';
import { attribute, itemKind } from './item.ts';
import { keys, type Key } from './keys.ts';
import { actorAttribute } from './stamps.ts';
import { batchGet, type GuardedItem } from './transactions.ts';

/**
 * Who deleted what, and when. A delete leaves no new image in the table's stream to stamp the actor
 * on (lib/db/core/stamps.ts), so a delete made for a request also writes, in its own transaction, a small
 * marker (`keys.deletion`: the deleted item's key under a partition of its own) naming the actor,
 * the time and the context the change feed reports with the delete (a comment's sprint). The change
 * feed reads the markers of a batch's REMOVE records in one BatchGet (lib/feed/consume.ts); the
 * marker expires by TTL after `DELETION_TTL_DAYS`, longer than the stream keeps a record (24 hours).
 *
 * Why a marker, and not the actor stamped on an item the transaction already updates (the issue's
 * list owner, the project): not every delete updates one (a comment delete by id updates the issue,
 * a project delete only the organisation's counter), and that item's own stream record is a
 * separate record the feed would have to match with the REMOVE. The marker is found by the
 * REMOVE's own key. It costs one more item in the transaction (one write unit, twice as a
 * transaction) and no round trip.
 *
 * Markers are of type `deletion`: no stream filter lets their writes through (the change feed's and
 * the cascade's name the types they read), and their partitions are no project's, so no cascade
 * reads them. Deletes made outside a request (the cascade of a parent, the admin CLI) write none.
 */

/** Days a marker is kept (DynamoDB TTL): the stream keeps a record 24 hours. */
export const DELETION_TTL_DAYS = 2;

/**
 * A delete's marker. Its actor is not written by `deletionMarker`: the Put is stamped with it, as
 * every write a request makes is (lib/db/core/stamps.ts), so a marker without one is none.
 */
export const deletionItem = itemKind({
  type: 'deletion',
  key: { PK: '<PK of x>#DEL', SK: '<SK of x>' },
  about: 'who deleted x, when (TTL `expires_at`)',
  attributes: {
    actorId: actorAttribute,
    deletedAt: attribute.string('deleted_at'),
    /** A comment's issue's sprint at the delete (null: the backlog); absent on the marker of anything but a comment. */
    sprintId: {
      stored: 'sprint_id',
      read: (v: unknown) => (v === undefined ? undefined : typeof v === 'number' ? v : null),
      write: (v: number | null | undefined) => v,
    },
    /** Present (true) only on a trash item's removal by a restore. */
    restored: { stored: 'restored', read: (v: unknown) => (v === true ? true : undefined), write: (v: true | undefined) => v },
    expiresAt: attribute.expiry(),
  },
});

/** What a delete's marker says beside the actor and the time. */
export interface DeletionContext {
  /** A comment's issue's sprint at the delete (null: the backlog). */
  sprintId?: number | null;
  /** A trash item deleted because its item came back (a restore), not purged (docs/trash.md). */
  restored?: true;
}

/**
 * The marker Put of a delete of the item at `key`, made for the request's actor: nothing outside a
 * request (no actor in scope). Unconditional: ids are never reused, so no other marker is there.
 */
export function deletionMarker(key: Key, context: DeletionContext = {}): GuardedItem[] {
  if (currentActor() === undefined) return [];
  const now = new Date();
  return [
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.deletion(key),
            type: deletionItem.type,
            ...deletionItem.encode({
              deletedAt: now.toISOString(),
              sprintId: context.sprintId,
              restored: context.restored,
              expiresAt: Math.floor(now.getTime() / 1000) + DELETION_TTL_DAYS * 86_400,
            }),
          },
        },
      },
    },
  ];
}

/** What a marker recorded: the actor (`updated_by`, stamped like every Put of a request), when, and the context. */
export interface Deletion {
  actorId: number;
  at: string;
  sprintId?: number | null;
  /** A trash item's removal by a restore. */
  restored?: true;
}

/**
 * The markers of deletes of the items at `deleted` (in that order; undefined where there is none: a
 * cascade's delete, one made outside a request, or one whose marker has expired), read in one
 * consistent BatchGet (more than 100 keys: parallel batches).
 */
export async function readDeletions(deleted: Key[]): Promise<(Deletion | undefined)[]> {
  if (deleted.length === 0) return [];
  const found = await batchGet(deleted.map((k) => keys.deletion(k)));
  return found.map((item) => {
    const marker = item && deletionItem.decode(item);
    if (marker?.actorId === undefined) return undefined;
    return {
      actorId: marker.actorId,
      at: marker.deletedAt,
      ...(marker.sprintId === undefined ? {} : { sprintId: marker.sprintId }),
      ...(marker.restored ? { restored: marker.restored } : {}),
    };
  });
}

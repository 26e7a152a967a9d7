import { deletionMarker } from './deletions.ts';
import { trashExpiry, type TrashKind } from '../../model/trash.ts';
import type { ContainerState } from '../../vocabulary/trash.ts';
import { TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { attribute, itemKind } from './item.ts';
import { collections, keys, listKeys, trashedAttachmentSk, trashMarkerKey, type Key } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import { getItem, transact, type GuardedItem } from './transactions.ts';
import { VERSION_ATTRIBUTE, withVersion } from './versions.ts';

/**
 * The organisation's trash: a deleted item, whole, in the organisation's trash partition under its
 * own sort key, written in the transaction that deletes it (so it leaves every answer and enters
 * the trash at once) and listed newest deletion first (LSI1). DynamoDB's TTL purges it the
 * organisation's retention after the delete (its setting, else the stage's `trashRetentionDays`:
 * lib/db/organisation/organisation.ts, `trashRetentionOf`), fixed then; reads treat one past its time as purged
 * (lib/model/trash.ts), since the TTL deletes some time later and DynamoDB Local never does.
 */
export const trashItem = itemKind({
  type: 'trash',
  key: { PK: 'ORG#o#TRASH', SK: '<SK of x>', LSK: listKeys.trash.placement },
  about: 'deleted item, whole, kept for the retention period (TTL `expires_at`)',
  attributes: {
    kind: attribute.oneOf<TrashKind>('kind'),
    itemId: attribute.number('item_id'),
    /** What a list shows of it: a webhook's URL, a label's name. */
    title: attribute.string('title'),
    deletedBy: attribute.number('deleted_by'),
    deletedAt: attribute.string('deleted_at'),
    /** The trash item's own version (1: it never changes): what its ETag and a purge's `If-Match` name. */
    version: attribute.number(VERSION_ATTRIBUTE),
    expiresAt: attribute.expiry(),
    /**
     * A sprint's or a project's (docs/trash.md): its issues being taken out of what is kept of them
     * outside it, in the trash, or being put back (lib/jobs/container-trash.ts). Other kinds: `held`.
     */
    state: attribute.oneOf<ContainerState, 'state'>('state', 'held'),
    /** A restoring sprint's or project's issues put back so far, of `total` (its progress). */
    returned: attribute.counter('returned'),
    total: attribute.counter('total'),
    /** Who began its restore (a sprint's or a project's, which ends in the background), or undefined. */
    restoredBy: attribute.laterNumber('restored_by'),
    /** Why its last restore could not finish (it is `held` again), or null. */
    restoreError: attribute.optionalString('restore_error'),
    /** The deleted item, every attribute as it was stored. */
    stored: { stored: 'stored', read: (v: unknown) => v as Record<string, unknown>, write: (v: unknown) => v },
  },
});

export type TrashFields = ReturnType<typeof trashItem.decode>;

/**
 * The Put that moves `stored` (the item being deleted, as read) into the organisation's trash,
 * under its own sort key (`trashSkOf`), to expire `retentionDays` from now (`trashRetentionOf` the
 * organisation, read with the item).
 */
export function trashPut(
  orgId: number,
  kind: TrashKind,
  stored: Record<string, unknown>,
  title: string,
  deletedBy: number,
  retentionDays: number,
  /** A sprint's or a project's: its issues are still to be taken out (`withdrawing`). */
  state?: ContainerState,
  /** The delete's time (ms), when the deleted item records it too (an attachment's `trashed_at`). */
  now = Date.now(),
): GuardedItem {
  const sk = trashSkOf(orgId, kind, Number(stored.id));
  return {
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.trash(orgId, sk),
          LSK: listKeys.trash(now, sk),
          type: trashItem.type,
          ...trashItem.encode({
            kind,
            itemId: Number(stored.id),
            title,
            deletedBy,
            deletedAt: new Date(now).toISOString(),
            version: 1,
            expiresAt: trashExpiry(now, retentionDays),
            stored,
            ...(state ? { state } : {}),
          }),
        },
      },
    },
  };
}

/**
 * The key of a trashed item of `kind` in the trash: the sort key it had, a webhook's, or a
 * label's (`LABEL#l`: label ids are the organisation's sequence, so unique across its projects) or
 * an issue's (`ISSUE#i`, likewise); a comment's is its pointer's (`COMMENT#c`), since its own names
 * its issue, and an attachment's `ATTACHMENT#f` for the same reason.
 */
const trashSkOf = (orgId: number, kind: TrashKind, itemId: number): string => {
  switch (kind) {
    case 'webhook':
      return keys.webhook(orgId, itemId).SK;
    case 'label':
      return keys.label(orgId, 0, itemId).SK; // no project id in a sort key
    case 'comment':
      return keys.commentPointer(orgId, itemId).SK;
    case 'attachment':
      return trashedAttachmentSk(itemId); // its own names its issue
    case 'issue':
      return keys.issue(orgId, 0, itemId).SK; // issue ids are the organisation's sequence too
    case 'sprint':
      return keys.sprint(orgId, 0, itemId).SK; // sprint ids are the organisation's sequence too
    case 'project':
      return keys.project(orgId, itemId).SK;
  }
};

/** The trash item of `kind` `itemId`, whether or not it is there. */
export const trashedKey = (orgId: number, kind: TrashKind, itemId: number): Key =>
  keys.trash(orgId, trashSkOf(orgId, kind, itemId));

/** The trash item of comment `commentId`, whether or not it is there. */
export const trashedCommentKey = (orgId: number, commentId: number): Key =>
  keys.trash(orgId, trashSkOf(orgId, 'comment', commentId));

/** The trash item of issue `issueId`, whether or not it is there. */
export const trashedIssueKey = (orgId: number, issueId: number): Key => keys.trash(orgId, trashSkOf(orgId, 'issue', issueId));

/** The trash item of label `labelId`, whether or not it is there. */
export const trashedLabelKey = (orgId: number, labelId: number): Key => keys.trash(orgId, trashSkOf(orgId, 'label', labelId));

/** The trashed item `itemId` of `kind`, or undefined. */
export async function getTrashed(orgId: number, kind: TrashKind, itemId: number): Promise<TrashFields | undefined> {
  const item = await getItem(keys.trash(orgId, trashSkOf(orgId, kind, itemId)));
  const found = item ? trashItem.decode(item) : undefined;
  return found?.kind === kind ? found : undefined;
}

/** A page of the organisation's trash, newest deletion first. */
export async function listTrash(orgId: number, page: PageRequest) {
  const { page: result } = await listPageWith<Record<string, unknown>>(collections.trash(orgId), page, []);
  return { page: result, items: result.items.map((i) => trashItem.decode(i)) };
}

/**
 * The Delete of a trash item (the one of the delete at `deletedAt`), only while it is there (else
 * refused `trashed`), with its marker (lib/db/core/deletions.ts): the change feed reports its removal as
 * `<kind>.restored` or `<kind>.purged` (lib/feed/events.ts) with the request's actor. The same key
 * can be trashed again after a restore, so its marker is named by the delete's time too
 * (`trashMarkerKey`): a restore and a later purge within the marker's life keep one each.
 */
export function trashRemoval(orgId: number, trashedSk: string, deletedAt: string, outcome: 'restored' | 'purged'): GuardedItem[] {
  const key = keys.trash(orgId, trashedSk);
  return [
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: key,
          ConditionExpression: 'attribute_exists(PK) AND deleted_at = :at',
          ExpressionAttributeValues: { ':at': deletedAt },
        },
      },
      reason: 'trashed',
    },
    ...deletionMarker(trashMarkerKey(key, deletedAt), outcome === 'restored' ? { restored: true } : {}),
  ];
}

/** `trashRemoval` of trashed item `itemId` of `kind`. */
export const trashRemovalOf = (
  orgId: number,
  kind: TrashKind,
  itemId: number,
  deletedAt: string,
  outcome: 'restored' | 'purged',
): GuardedItem[] => trashRemoval(orgId, trashSkOf(orgId, kind, itemId), deletedAt, outcome);

/**
 * Deletes trashed item `itemId` of `kind` for good (refused `trashed` when it is gone). It is the
 * request's resource: `If-Match` names its version (`trashAnswer`).
 */
export async function purgeTrashed(orgId: number, kind: TrashKind, itemId: number, deletedAt: string): Promise<void> {
  const [removal, ...marker] = trashRemoval(orgId, trashSkOf(orgId, kind, itemId), deletedAt, 'purged');
  await transact([{ ...removal!, resource: true }, ...marker]);
}

/** `answer` (a trash item as answered) with the version of the trash item it shows: its ETag. */
export const trashAnswer = <T extends object>(orgId: number, f: TrashFields, answer: T): T =>
  withVersion(answer, { ...keys.trash(orgId, trashSkOf(orgId, f.kind, f.itemId)), version: f.version });

/**
 * Whether a trashable item (at `itemKey`; in the trash at `trashKey`) is gone for good: neither
 * there nor in the trash, where what lives under it, or refers to it, waits for a restore. One
 * TransactGetItems reads both, so a restore (which writes the item and deletes the trash item at
 * once) is never seen half done.
 */
export async function goneForGood(itemKey: Key, trashKey: Key): Promise<boolean> {
  return (await whereIs(itemKey, trashKey)) === 'gone';
}

/**
 * Where a trashable item (at `itemKey`; in the trash at `trashKey`) is now: `there`, in the trash
 * (`trashed`), or neither (`gone`: purged, expired, or removed with what it lived under). One
 * TransactGetItems reads both, so a delete into the trash or a restore (each writes one and
 * deletes the other at once) is never seen half done.
 */
export async function whereIs(itemKey: Key, trashKey: Key): Promise<'there' | 'trashed' | 'gone'> {
  const { there, trashed } = await readWithTrash(itemKey, trashKey, 'keys');
  return there ? 'there' : trashed ? 'trashed' : 'gone';
}

/**
 * A trashable item's presence and its trash item (its key alone, or `whole`), in one
 * TransactGetItems (see `whereIs`).
 */
export async function readWithTrash(
  itemKey: Key,
  trashKey: Key,
  trash: 'keys' | 'whole',
): Promise<{ there: boolean; trashed: Record<string, unknown> | undefined }> {
  const out = await db.send(
    new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: tableName(), Key: itemKey, ProjectionExpression: 'PK' } },
        { Get: { TableName: tableName(), Key: trashKey, ...(trash === 'keys' ? { ProjectionExpression: 'PK' } : {}) } },
      ],
    }),
  );
  const [item, trashed] = out.Responses ?? [];
  return { there: item?.Item !== undefined, trashed: trashed?.Item };
}

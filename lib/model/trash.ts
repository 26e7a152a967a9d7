/**
 * The trash's pure rules: when a trashed item expires, and whether it still counts as there.
 * DynamoDB's TTL deletes an expired item some time after its `expires_at` (up to days later), and
 * DynamoDB Local never does: an item past its time is treated as purged by every read and restore.
 */

import { TRASH_KINDS, type TrashKind } from '../vocabulary/trash.ts';

export { TRASH_KINDS, type TrashKind };

/** The TTL (epoch seconds) of an item deleted at `deletedAtMs`, kept `retentionDays`. */
export const trashExpiry = (deletedAtMs: number, retentionDays: number): number =>
  Math.floor(deletedAtMs / 1000) + retentionDays * 86_400;

/** Whether a trashed item with TTL `expiresAt` (epoch seconds) is past its retention at `nowMs`. */
export const isExpired = (expiresAt: number, nowMs: number): boolean => expiresAt * 1000 <= nowMs;

/** A trash id (`webhook-12`): the kind and the item's own id, which is never reused. */
export const trashId = (kind: TrashKind, itemId: number): string => `${kind}-${itemId}`;

/** The kind and item id of a trash id, or undefined when it is not one. */
export function parseTrashId(id: string): { kind: TrashKind; itemId: number } | undefined {
  const m = /^([a-z]+)-([1-9]\d{0,9})$/.exec(id);
  if (!m || !(TRASH_KINDS as readonly string[]).includes(m[1]!)) return undefined;
  return { kind: m[1] as TrashKind, itemId: Number(m[2]) };
}

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

/** The most of a text a trash list's `title` shows (a comment's body). */
export const TRASH_TITLE_LENGTH = 80;

/**
 * A trashed text's title (a comment's body): its first line, whole when it is all of the text and
 * at most `TRASH_TITLE_LENGTH` characters, else cut to fit with `…` after it.
 */
export function trashTitle(text: string): string {
  const trimmed = text.trim();
  const line = trimmed.split(/\r?\n/, 1)[0] ?? '';
  const chars = [...line];
  const whole = line === trimmed && chars.length <= TRASH_TITLE_LENGTH;
  return whole ? line : `${chars.slice(0, TRASH_TITLE_LENGTH - 1).join('')}…`;
}

import {
  keyOfId,
  markNotesRead,
  RECIPIENTS_AT_ONCE,
  unreadNotes,
  writeNotifications,
  type NewNotification,
  type NoteKey,
  type NotifiedChange,
} from '../db/organisation/inbox.ts';
import { MARK_ALL_LIMIT } from '../vocabulary/notifications.ts';

/**
 * The inbox's writes of many notifications at once (docs/notifications.md): a change's to its
 * recipients, and marks read. Each transaction is conditional (lib/db/organisation/inbox.ts); when
 * one is refused because some of its notifications were written or read already, the others are
 * written one by one, so each moves its account's count exactly once.
 */

/** Writes one change's notifications, 49 recipients per transaction. Answers how many were written. */
export async function deliverNotifications(change: NotifiedChange, notes: NewNotification[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < notes.length; i += RECIPIENTS_AT_ONCE) {
    written += await deliverChunk(change, notes.slice(i, i + RECIPIENTS_AT_ONCE));
  }
  return written;
}

async function deliverChunk(change: NotifiedChange, chunk: NewNotification[]): Promise<number> {
  const outcome = await writeNotifications(change, chunk);
  if (outcome === 'written') return chunk.length;
  // Some were notified before (a record worked again): one by one, the rest.
  if (outcome === 'gone' || chunk.length === 1) return 0;
  let written = 0;
  for (const note of chunk) written += await deliverChunk(change, [note]);
  return written;
}

/** Tries of a mark whose transaction meets another mark of the same inbox. */
const MARK_ATTEMPTS = 8;

/** Marks notifications read by id; answers how many were unread (each moves the count once, whoever marks it). */
export async function markRead(orgId: number, accountId: number, ids: string[], at: string): Promise<number> {
  const wanted = [...new Set(ids)].flatMap((id) => keyOfId(orgId, accountId, id) ?? []);
  return markKeys(orgId, accountId, wanted, at);
}

/** Marks every listed unread notification read, at most MARK_ALL_LIMIT of them: how many, and whether more remain. */
export async function markAllRead(orgId: number, accountId: number, at: string): Promise<{ marked: number; more: boolean }> {
  const { notes, more } = await unreadNotes(orgId, accountId, MARK_ALL_LIMIT);
  return { marked: await markKeys(orgId, accountId, notes, at), more };
}

async function markKeys(orgId: number, accountId: number, wanted: NoteKey[], at: string): Promise<number> {
  let marked = 0;
  for (let i = 0; i < wanted.length; i += 99) marked += await markChunk(orgId, accountId, wanted.slice(i, i + 99), at);
  return marked;
}

async function markChunk(orgId: number, accountId: number, chunk: NoteKey[], at: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await markNotesRead(orgId, accountId, chunk, at);
    if (outcome === 'marked') return chunk.length;
    if (outcome === 'read') break;
    if (attempt >= MARK_ATTEMPTS) throw new Error('marks of one inbox kept meeting');
    await new Promise((resolve) => setTimeout(resolve, 25 * attempt * (0.5 + Math.random())));
  }
  // Some were read already, hidden, or not there: one by one, the others.
  if (chunk.length === 1) return 0;
  let marked = 0;
  for (const key of chunk) marked += await markChunk(orgId, accountId, [key], at);
  return marked;
}

import { completeCommentPointer, scanCommentsPage, writeCommentPointer } from '../db/comments/comments.ts';

/**
 * The backfill of comment pointers (`keys.commentPointer`, lib/db/comments/comment-pointers.ts):
 * comments written before pointers existed, when `GET /comments/{id}` read a global index, and
 * pointers written before pointers carried the comment. An operator's command
 * (`comments:pointers`, tools/cli/admin.ts) run once after deploying, and a data migration
 * (lib/migrations) that runs it a step at a time. It reads the table with a Scan, which no request
 * path does; each read and write is in lib/db/comments/comments.ts.
 */

/** A bounded part of the Scan: from `start` (undefined: the beginning), at most `pages` pages of at most `limit` items read each. */
export interface CommentScanStep {
  start?: Record<string, unknown> | undefined;
  pages: number;
  limit: number;
}

/**
 * Writes the pointer of every comment that has none (of organisation `orgId` only, when given). The
 * pointer carries the comment's fixed fields, its version, its body and `updated_at`, as a new
 * comment's does; a pointer written before pointers carried them gets them
 * (`completeCommentPointer`), so that the comment's writes are decided on the pointer (and its
 * delete moves it into the trash from it). A pointer is written only while its comment is there, so
 * a cascade running meanwhile is not undone. Returns how many comments it saw, how many pointers it
 * wrote and how many it completed; running it again writes none. With `step`, it reads only that
 * part of the Scan and returns where the next part starts (`next`, undefined at the end).
 */
export async function writeMissingCommentPointers(
  orgId?: number,
  step?: CommentScanStep,
): Promise<{ comments: number; written: number; completed: number; next?: Record<string, unknown> | undefined }> {
  const counts = { comments: 0, written: 0, completed: 0 };
  let start = step?.start;
  for (let pages = step?.pages ?? Infinity; ;) {
    const page = await scanCommentsPage(orgId, start, step?.limit);
    for (const item of page.items) {
      counts.comments++;
      const outcome = await restorePointer(item);
      if (outcome !== 'none') counts[outcome]++;
    }
    start = page.next;
    if (start === undefined || --pages <= 0) break;
  }
  return step ? { ...counts, next: start } : counts;
}

/**
 * The pointer of one comment as the Scan read it (its keys, place, fixed fields, body, `updated_at`
 * and version): written when it has none, completed when it lacks the comment's fields, left alone
 * otherwise, and never written for a comment that is gone since the Scan read it (a cascade running
 * meanwhile is not undone).
 */
export async function restorePointer(item: Record<string, unknown>): Promise<'written' | 'completed' | 'none'> {
  const written = await writeCommentPointer(item);
  // A comment gone since the Scan gets nothing; one that has a pointer may need it completed.
  if (written !== 'pointed') return written === 'written' ? 'written' : 'none';
  return (await completeCommentPointer(item)) ? 'completed' : 'none';
}

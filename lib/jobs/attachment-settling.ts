import { isRefused } from '../db/core/transactions.ts';
import {
  attachmentRefusals,
  attachmentsOfComment,
  commentsWithFilesInTrash,
  expiredAttachmentOfImage,
  forgetCommentFilesInTrash,
  getAttachment,
  giveBackExpiredAttachment,
  listAttachments,
  markCommentAttachment,
  removeAttachmentBesideIssue,
  removeCountedAttachment,
  whereIsComment,
  type CommentAttachment,
  type Image,
  type StoredAttachment,
} from '../db/attachments/attachments.ts';

/**
 * Brings a comment's attachments to where the comment is now (docs/trash.md), whatever stream
 * record asks (its removal into the trash or with its issue, its trash item's removal by a restore,
 * a purge or the TTL), since records of different items may come in any order. It reads where the
 * comment is (`whereIsComment`), then:
 *
 * - the comment is there (restored): its attachments still marked `in_trash` take their place in
 *   their issue's count again (`showCommentAttachments`);
 * - it is in the trash: those not marked yet give their place back and are marked
 *   (`hideCommentAttachments`): kept, whole, with their files and bytes, for its restore;
 * - it is gone for good (purged, expired, or gone with its issue): they are removed
 *   (`releaseCommentAttachments`).
 *
 * Their answers follow the comment at once, in its own transaction (`commentsWithFilesInTrash` on
 * the issue); only their place in the issue's count follows here. Returns how many attachments it
 * moved (or removed).
 */
export async function settleCommentAttachments(
  orgId: number,
  projectId: number,
  issueId: number,
  commentId: number,
): Promise<number> {
  const where = await whereIsComment(orgId, projectId, issueId, commentId);
  if (where === 'there') return showCommentAttachments(orgId, projectId, issueId, commentId);
  if (where === 'trashed') return hideCommentAttachments(orgId, projectId, issueId, commentId);
  return releaseCommentAttachments(orgId, projectId, issueId, commentId);
}

/**
 * Settles the attachments of each comment of an issue back from the trash (`settleCommentAttachments`).
 * While the issue was away, a restore, delete or purge of its comment could not move their places
 * in its count, nor take the comment off its record of those in the trash. Returns how many it moved.
 */
export async function settleIssueCommentAttachments(orgId: number, projectId: number, issueId: number): Promise<number> {
  const [found, inTrash] = await Promise.all([
    listAttachments(orgId, projectId, issueId),
    commentsWithFilesInTrash(orgId, projectId, issueId),
  ]);
  const comments = new Set([...found.flatMap((a) => a.commentId ?? []), ...inTrash]);
  let moved = 0;
  for (const commentId of comments) moved += await settleCommentAttachments(orgId, projectId, issueId, commentId);
  return moved;
}

/**
 * Moves each of the attachments (`to`: into the trash or back) that is not there yet, with its
 * count (`markCommentAttachment`). Stops when the comment or its issue has moved on: the stream
 * record of that move settles them again. Returns how many it moved.
 */
async function markAll(found: CommentAttachment[], to: boolean): Promise<number> {
  let moved = 0;
  for (const a of found) {
    // One in the trash on its own stays marked when its comment comes back (its own restore counts it).
    if (a.inTrash === to || (!to && a.trashedAt !== null)) continue;
    try {
      await markCommentAttachment(a, to);
      moved++;
    } catch (err) {
      if (!isRefused(err, attachmentRefusals.attachment, attachmentRefusals.issue, attachmentRefusals.comment)) throw err;
      if (!isRefused(err, attachmentRefusals.attachment)) break;
    }
  }
  return moved;
}

/** The attachments of a comment in the trash give their place in their issue's count back, marked `in_trash`. */
export async function hideCommentAttachments(orgId: number, projectId: number, issueId: number, commentId: number) {
  return markAll(await attachmentsOfComment(orgId, projectId, issueId, commentId), true);
}

/** The attachments of a restored comment take their place in their issue's count again. */
export async function showCommentAttachments(orgId: number, projectId: number, issueId: number, commentId: number) {
  return markAll(await attachmentsOfComment(orgId, projectId, issueId, commentId), false);
}

/**
 * Removes the attachments of a comment gone for good (purged, expired, or gone with its issue),
 * each in a transaction with its counts (the issue's only while it counts it and the issue is
 * there); one already removed is left alone. Then its issue no longer holds it among the comments
 * whose files are in the trash (`commentsWithFilesInTrash`). Returns how many.
 */
export async function releaseCommentAttachments(orgId: number, projectId: number, issueId: number, commentId: number) {
  const found = await attachmentsOfComment(orgId, projectId, issueId, commentId);
  for (const first of found) {
    let a: StoredAttachment | undefined = first;
    for (let attempt = 0; a && attempt < 3; attempt++) {
      try {
        await removeCountedAttachment(a);
        break;
      } catch (err) {
        if (!isRefused(err, attachmentRefusals.issue, attachmentRefusals.attachment)) throw err;
        if (isRefused(err, attachmentRefusals.issue)) {
          await removeBesideTrashedIssue(a);
          break;
        }
        // Gone already, or counted otherwise since it was read (its mark moved): read it again.
        a = await getAttachment(orgId, projectId, issueId, a.id);
      }
    }
  }
  await forgetCommentFilesInTrash(orgId, projectId, issueId, commentId);
  return found.length;
}

/**
 * Removes attachment `a` of an issue that is not there. Its issue in the trash, whose image there
 * still counts it (it was not hidden with its comment: the issue went into the trash before the
 * comment's delete could hide it), counts it no more either, in the same transaction, so that the
 * issue's restore brings back the count of what is there; its issue gone for good, it goes alone.
 * One completed since it was read (its status is in the removal's condition) is read again and
 * removed as it is now, as the cascade does (lib/db/cascades/cascade-steps.ts); one gone already is left.
 */
export async function removeBesideTrashedIssue(first: StoredAttachment): Promise<void> {
  let a: StoredAttachment | undefined = first;
  for (let attempt = 0; a && attempt < 3; attempt++) {
    try {
      await removeOnceBesideTrashedIssue(a);
      return;
    } catch (err) {
      if (!isRefused(err, attachmentRefusals.attachment)) throw err;
      a = await getAttachment(a.orgId, a.projectId, a.issueId, a.id);
    }
  }
}

/** `removeBesideTrashedIssue` for `a` as read: its issue's image in the trash counts it no more, unless it does not. */
async function removeOnceBesideTrashedIssue(a: StoredAttachment): Promise<void> {
  // One marked `in_trash` is counted there no more already.
  const uncount = !a.inTrash;
  try {
    await removeAttachmentBesideIssue(a, uncount);
  } catch (err) {
    if (uncount && isRefused(err, 'trashed')) await removeAttachmentBesideIssue(a, false);
    else throw err;
  }
}

/**
 * Removes an attachment whose trash item was purged or expired (the REMOVE of the trash item of
 * the delete at `deletedAt`), with its bytes, in one transaction; its file goes when the stream
 * shows its removal. Nothing when it is no longer that delete's: restored (and perhaps deleted
 * again), or gone already with its comment or its issue. Returns whether it removed it.
 */
export async function releaseTrashedAttachment(
  ref: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId' | 'id'>,
  deletedAt: string,
): Promise<boolean> {
  const a = await getAttachment(ref.orgId, ref.projectId, ref.issueId, ref.id);
  if (!a || a.trashedAt !== deletedAt) return false;
  try {
    await removeCountedAttachment(a);
  } catch (err) {
    if (!isRefused(err, attachmentRefusals.issue, attachmentRefusals.attachment)) throw err;
    if (isRefused(err, attachmentRefusals.attachment)) return false;
    // Its issue in the trash (which does not count it either) or gone: it goes alone.
    await removeBesideTrashedIssue(a);
  }
  return true;
}

/**
 * Gives back the place in the limits of an attachment its TTL removed (a pending one never
 * completed: `image` is the stream's old image): the organisation's bytes and, while the issue is
 * there, the issue's count (`giveBackExpiredAttachment`), once however often the record is replayed.
 * Returns whether it did.
 */
export async function releaseExpiredAttachment(image: Image, now = new Date()): Promise<boolean> {
  const a = expiredAttachmentOfImage(image);
  if (!a) return false;
  try {
    await giveBackExpiredAttachment(a, true, now);
  } catch (err) {
    if (isRefused(err, attachmentRefusals.attachment)) return false;
    if (!isRefused(err, attachmentRefusals.issue)) throw err;
    try {
      await giveBackExpiredAttachment(a, false, now);
    } catch (again) {
      if (isRefused(again, attachmentRefusals.attachment)) return false;
      throw again;
    }
  }
  return true;
}

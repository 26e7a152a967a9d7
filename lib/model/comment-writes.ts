/**
 * The rules of a comment's writes that read nothing (lib/db/comments/comments.ts writes them): the
 * times a new comment is written with, and how a comment's create, restore and delete move its issue.
 */

/** What a new comment's times are given: an import gives the source's, a request none. */
export interface GivenTimes {
  created_at?: string | undefined;
  updated_at?: string | undefined;
}

/** A new comment's times: those given (`updated_at` is `created_at` when only that is given), else now. */
export function newCommentTimes(given: GivenTimes, now: string): { created_at: string; updated_at: string } {
  return { created_at: given.created_at ?? now, updated_at: given.updated_at ?? given.created_at ?? now };
}

/** The comment's id when it has attachments (which go into the trash with it and come back with it), else undefined. */
export const withFilesOf = (comment: { id: number; hasAttachments: boolean }): number | undefined =>
  comment.hasAttachments ? comment.id : undefined;

/**
 * How a comment's write moves its issue: its count of comments by `by` (a create or a restore: 1, a
 * delete: -1) and, for a comment with attachments (`withFiles`: its id), the issue's record of the
 * comments whose attachments are in the trash with them: a delete adds it, a restore takes it off.
 */
export function issueCountChange(by: number, withFiles: number | undefined) {
  const files = withFiles === undefined ? undefined : { commentsWithFilesInTrash: new Set([withFiles]) };
  return {
    add: { commentsCount: by, ...(by < 0 && files) },
    ...(by >= 0 && files && { delete: files }),
  };
}

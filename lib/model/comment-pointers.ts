import type { Comment } from '../schemas/comments.ts';

/**
 * What a comment's pointer says (lib/db/comments/comment-pointers.ts stores it): where the comment
 * lives, what of it never changes with its version, and a copy of the rest. A pointer written
 * before pointers carried the comment's fields lacks them.
 */

/** A comment's pointer as read (`pointerOf`). */
export interface CommentPointer {
  id: number;
  projectId: number;
  issueId: number;
  /**
   * The issue's sprint when the comment was written or last edited (null: the backlog): a hint, for
   * the issue may have moved since; every write decided on it checks it.
   */
  sprintId: number | null;
  /**
   * The comment's author and creation time, and its version, which every update of the comment
   * moves on the pointer too. Absent on a pointer written before pointers carried them.
   */
  fixed?: { authorId: number; authorName: string; createdAt: string; version: number } | undefined;
  /**
   * The rest of the comment at the pointer's version: its body and `updated_at`, who wrote it
   * last, whether it has attachments. A delete moves the comment into the trash whole from it,
   * without reading the comment. Absent on a pointer written before pointers carried the body.
   */
  copy?: { body: string; updatedAt: string; updatedBy: number | undefined; hasAttachments: boolean } | undefined;
}

/** A pointer that carries the comment's fixed fields and version. */
export type FullCommentPointer = CommentPointer & { fixed: NonNullable<CommentPointer['fixed']> };

/** A pointer that carries the whole comment (`copy`). */
export type CopyingCommentPointer = FullCommentPointer & { copy: NonNullable<CommentPointer['copy']> };

/** A pointer's fields as stored, each undefined when the pointer lacks it. */
export interface PointerFields {
  projectId: number;
  issueId: number;
  sprintId: number | null;
  authorId: number | undefined;
  authorName: string | undefined;
  createdAt: string | undefined;
  body: string | undefined;
  updatedAt: string | undefined;
  updatedBy: number | undefined;
  hasAttachments: boolean;
}

/**
 * A comment's pointer from its fields and its version (0: written before versions). It carries the
 * comment's fixed fields only when all of them are there: a pointer written before pointers carried
 * them has none, and a write is then decided on the comment itself.
 */
export function pointerOf(id: number, p: PointerFields, version: number): CommentPointer {
  const { authorId, authorName, createdAt, body, updatedAt } = p;
  const full = authorId !== undefined && authorName !== undefined && createdAt !== undefined;
  return {
    id,
    projectId: p.projectId,
    issueId: p.issueId,
    sprintId: p.sprintId,
    fixed: full ? { authorId, authorName, createdAt, version } : undefined,
    copy:
      full && body !== undefined && updatedAt !== undefined
        ? { body, updatedAt, updatedBy: p.updatedBy, hasAttachments: p.hasAttachments }
        : undefined,
  };
}

/** The comment a pointer that carries its fixed fields answers for, once its body is `body`, written at `now`. */
export const commentOnPointer = (pointer: FullCommentPointer, body: string, now: string): Comment => ({
  id: pointer.id,
  body,
  issue_id: pointer.issueId,
  author_id: pointer.fixed.authorId,
  author_name: pointer.fixed.authorName,
  created_at: pointer.fixed.createdAt,
  updated_at: now,
});

/**
 * A comment's pointer (`keys.commentPointer`, in the organisation's partition): where the comment
 * lives, for a path that names only its id, and what of the comment never changes, with its
 * version, so that a write can be decided and answered without reading the comment.
 */
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

/** A sprint id as stored: null (or absent, on old items) for the backlog. */
export const sprintIdOf = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * A comment's pointer from its stored item (plain attributes). It carries the comment's fixed
 * fields only when all of them are there: a pointer written before pointers carried them has none,
 * and a write is then decided on the comment itself.
 */
export function pointerFromItem(id: number, item: Record<string, unknown>): CommentPointer {
  const full = item.author_id !== undefined && typeof item.author_name === 'string' && typeof item.created_at === 'string';
  return {
    id,
    projectId: Number(item.project_id),
    issueId: Number(item.issue_id),
    sprintId: sprintIdOf(item.sprint_id),
    fixed: full
      ? {
          authorId: Number(item.author_id),
          authorName: String(item.author_name),
          createdAt: String(item.created_at),
          // The stored version (`VERSION_ATTRIBUTE`, lib/db/versions.ts); 0 on an item written before versions.
          version: Number(item.version ?? 0),
        }
      : undefined,
    copy:
      full && typeof item.body === 'string' && typeof item.updated_at === 'string'
        ? {
            body: item.body,
            updatedAt: item.updated_at,
            updatedBy: item.updated_by === undefined ? undefined : Number(item.updated_by),
            hasAttachments: item.has_attachments === true,
          }
        : undefined,
  };
}

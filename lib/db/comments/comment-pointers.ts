import { attribute, itemKind } from '../core/item.ts';
import { keys } from '../core/keys.ts';
import { actorAttribute } from '../core/stamps.ts';
import { versionOf } from '../core/versions.ts';

/**
 * A comment's pointer (`keys.commentPointer`, in the organisation's partition), declared once
 * (lib/db/core/item.ts): where the comment lives, for a path that names only its id, and what of the
 * comment never changes, with its version (moved with the comment's), so that a write can be
 * decided and answered without reading the comment; and a copy of the rest of it, so that a
 * delete moves it into the trash whole. A pointer written before pointers carried the comment's
 * fields lacks them (undefined).
 */
export const commentPointerItem = itemKind({
  type: 'comment_pointer',
  key: keys.commentPointer.placement,
  about: 'where comment c lives (its project, issue, sprint), with a copy of it',
  attributes: {
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    /** The issue's sprint when the comment was written or last edited (null, or absent on old items: the backlog). */
    sprintId: attribute.nullableNumber('sprint_id'),
    authorId: attribute.laterNumber('author_id'),
    authorName: attribute.laterString('author_name'),
    createdAt: attribute.laterString('created_at'),
    body: attribute.laterString('body'),
    updatedAt: attribute.laterString('updated_at'),
    /** Who wrote the comment last (the stamp of every update: lib/db/core/stamps.ts). */
    updatedBy: actorAttribute,
    /** Set with the comment's (lib/db/attachments/attachments.ts): its removal releases its attachments. */
    hasAttachments: attribute.flag('has_attachments'),
  },
});

/** A comment's pointer as read (`pointerFromItem`). */
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

/**
 * A comment's pointer from its stored item. It carries the comment's fixed fields only when all of
 * them are there: a pointer written before pointers carried them has none, and a write is then
 * decided on the comment itself.
 */
export function pointerFromItem(id: number, item: object): CommentPointer {
  const p = commentPointerItem.decode(item);
  const { authorId, authorName, createdAt, body, updatedAt } = p;
  const full = authorId !== undefined && authorName !== undefined && createdAt !== undefined;
  return {
    id,
    projectId: p.projectId,
    issueId: p.issueId,
    sprintId: p.sprintId,
    // The stored version: 0 on an item written before versions.
    fixed: full ? { authorId, authorName, createdAt, version: versionOf(item) } : undefined,
    copy:
      full && body !== undefined && updatedAt !== undefined
        ? { body, updatedAt, updatedBy: p.updatedBy, hasAttachments: p.hasAttachments }
        : undefined,
  };
}

import { attribute, itemKind } from '../core/item.ts';
import { keys } from '../core/keys.ts';
import { actorAttribute } from '../core/stamps.ts';
import { versionOf } from '../core/versions.ts';
import { pointerOf, type CommentPointer } from '../../model/comment-pointers.ts';

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

/**
 * A comment's pointer from its stored item (`pointerOf`): a pointer written before pointers carried
 * the comment's fields lacks them, and a write is then decided on the comment itself.
 */
export const pointerFromItem = (id: number, item: object): CommentPointer =>
  pointerOf(id, commentPointerItem.decode(item), versionOf(item));

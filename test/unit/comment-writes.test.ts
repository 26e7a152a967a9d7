import { describe, expect, it } from 'vitest';
import { issueCountChange, newCommentTimes, withFilesOf } from '../../lib/model/comment-writes.ts';
import { commentOnPointer, pointerOf, type PointerFields } from '../../lib/model/comment-pointers.ts';

/** The rules of a comment's writes, without a table. */

const now = '2026-02-01T00:00:00.000Z';

describe("a new comment's times", () => {
  it('are now when none are given (a request)', () => {
    expect(newCommentTimes({}, now)).toEqual({ created_at: now, updated_at: now });
  });

  it("are the source's when an import gives them; updated_at is created_at when only that is given", () => {
    const created = '2020-01-01T00:00:00.000Z';
    const updated = '2021-01-01T00:00:00.000Z';
    expect(newCommentTimes({ created_at: created, updated_at: updated }, now)).toEqual({
      created_at: created,
      updated_at: updated,
    });
    expect(newCommentTimes({ created_at: created }, now)).toEqual({ created_at: created, updated_at: created });
  });
});

describe("how a comment's write moves its issue", () => {
  it('moves the count alone for a comment without attachments', () => {
    expect(withFilesOf({ id: 4, hasAttachments: false })).toBeUndefined();
    expect(issueCountChange(1, undefined)).toEqual({ add: { commentsCount: 1 } });
    expect(issueCountChange(-1, undefined)).toEqual({ add: { commentsCount: -1 } });
  });

  it("records a deleted comment's attachments as in the trash, and takes them off on its restore", () => {
    const files = withFilesOf({ id: 4, hasAttachments: true });
    expect(files).toBe(4);
    expect(issueCountChange(-1, files)).toEqual({ add: { commentsCount: -1, commentsWithFilesInTrash: new Set([4]) } });
    expect(issueCountChange(1, files)).toEqual({
      add: { commentsCount: 1 },
      delete: { commentsWithFilesInTrash: new Set([4]) },
    });
  });
});

describe('the comment a pointer answers for', () => {
  it("is the pointer's fixed fields with the new body at the time written", () => {
    const fields: PointerFields = {
      projectId: 3,
      issueId: 7,
      sprintId: null,
      authorId: 9,
      authorName: 'Ada',
      createdAt: '2026-01-02T03:04:05.000Z',
      body: undefined,
      updatedAt: undefined,
      updatedBy: undefined,
      hasAttachments: false,
    };
    const pointer = pointerOf(11, fields, 2);
    if (!pointer.fixed) throw new Error('a pointer with all its fixed fields carries them');
    expect(commentOnPointer({ ...pointer, fixed: pointer.fixed }, 'edited', now)).toEqual({
      id: 11,
      body: 'edited',
      issue_id: 7,
      author_id: 9,
      author_name: 'Ada',
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: now,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { commentPointerItem, pointerFromItem } from '../../lib/db/comments/comment-pointers.ts';

/** What a comment's pointer says, read from its stored attributes without a table. */

const stored = {
  project_id: 3,
  issue_id: 7,
  sprint_id: 5,
  author_id: 9,
  author_name: 'Ada',
  created_at: '2026-01-02T03:04:05.000Z',
};

describe('a comment pointer from its item', () => {
  it('carries the place and the fixed fields with the version when all of them are stored', () => {
    expect(pointerFromItem(11, { ...stored, version: 4 })).toEqual({
      id: 11,
      projectId: 3,
      issueId: 7,
      sprintId: 5,
      fixed: { authorId: 9, authorName: 'Ada', createdAt: '2026-01-02T03:04:05.000Z', version: 4 },
    });
  });

  it('carries no fixed fields when the pointer was written before pointers carried them', () => {
    expect(pointerFromItem(11, { project_id: 3, issue_id: 7, sprint_id: null }).fixed).toBeUndefined();
    expect(pointerFromItem(11, { ...stored, author_name: undefined }).fixed).toBeUndefined();
  });

  it('counts a pointer without a version as version 0, and a missing sprint as the backlog', () => {
    expect(pointerFromItem(11, stored).fixed?.version).toBe(0);
    expect(pointerFromItem(11, { ...stored, sprint_id: undefined }).sprintId).toBeNull();
    expect(pointerFromItem(11, { ...stored, sprint_id: 12 }).sprintId).toBe(12);
  });

  it('carries the rest of the comment when its body is stored, with who wrote it last and its attachments mark', () => {
    const copying = { ...stored, body: 'hi', updated_at: '2026-01-03T00:00:00.000Z', updated_by: 4, has_attachments: true };
    expect(pointerFromItem(11, copying).copy).toEqual({
      body: 'hi',
      updatedAt: '2026-01-03T00:00:00.000Z',
      updatedBy: 4,
      hasAttachments: true,
    });
    expect(pointerFromItem(11, { ...copying, updated_by: undefined, has_attachments: undefined }).copy).toMatchObject({
      updatedBy: undefined,
      hasAttachments: false,
    });
    expect(pointerFromItem(11, { ...copying, updated_at: undefined }).copy).toBeUndefined();
  });

  it('writes the attachments mark only when set, and a body only when given', () => {
    expect(commentPointerItem.encode({ hasAttachments: false, body: undefined, sprintId: null })).toEqual({ sprint_id: null });
    expect(commentPointerItem.encode({ hasAttachments: true, authorId: 9 })).toEqual({ has_attachments: true, author_id: 9 });
  });
});

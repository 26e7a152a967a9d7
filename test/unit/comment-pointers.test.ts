import { describe, expect, it } from 'vitest';
import { pointerFromItem, sprintIdOf } from '../../lib/db/comment-pointers.ts';

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
    expect(sprintIdOf('12')).toBe(12);
  });
});

import { describe, expect, it } from 'vitest';
import { revertedBy } from '../../lib/feed/events.ts';
import { notRevertible, revertOf } from '../../lib/model/revert.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { activityIdOf, activityIdParts } from '../../lib/vocabulary/ids.ts';

/** An issue as the API answers it, with what a test says. */
const issue = (fields: Partial<Issue> = {}): Issue => ({
  id: 7,
  project_id: 3,
  sprint_id: null,
  issue_number: 'UN-7',
  custom_fields: {},
  source_key: null,
  title: 'Now',
  description: null,
  status: 'todo',
  state_id: 2,
  status_category: 'todo',
  allowed_next_states: [],
  story_points: null,
  position: 1,
  assignee_id: null,
  priority: 'none',
  type: 'task',
  due_date: null,
  parent_id: null,
  sub_issues_summary: { total: 0, done: 0, story_points: 0, completed_story_points: 0 },
  labels: [],
  started_at: null,
  completed_at: null,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  blocked: false,
  links: { count: 0, pull_request_state: null, pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 } },
  watchers: { count: 0, account_ids: [] },
  ...fields,
});

const label = (id: number) => ({ id, name: `l${id}`, color: '#000000' });

describe('activity ids', () => {
  it('say where an entry lives, and are read back the same, stream and import sequences alike', () => {
    for (const [owner, sequence] of [
      [{ issueId: 41 }, '49602745177004327146052263106013829406'],
      [{ sprintId: 5 }, '17'],
      [{ issueId: 9 }, '#000000000003'],
      [{ issueId: 9 }, '$000000000000'],
    ] as const) {
      const id = activityIdOf(12, owner, sequence);
      expect(id).toMatch(/^[\w.-]+$/);
      expect(activityIdParts(id)).toEqual({ projectId: 12, owner, sequence });
    }
    expect(activityIdOf(12, { issueId: 41 }, '17')).toBe('12-41-17');
    expect(activityIdOf(12, { sprintId: 5 }, '17')).toBe('12-s5-17');
  });

  it('keep time order within an issue: an import restored entries, its own, then the stream', () => {
    const ids = ['#000000000001', '#000000000002', '$000000000000', '100', '101'].map((s) => activityIdOf(1, { issueId: 2 }, s));
    expect([...ids].sort()).toEqual(ids);
  });

  it('name nothing in any other shape: the bare sequence served before, garbage, ids out of range', () => {
    for (const id of [
      '49602745177004327146052263106013829406',
      '1-2',
      '0-2-3',
      '1-0-3',
      '1-x2-3',
      '1-2-3-4',
      '1-2-#3',
      '',
      '1-2-',
      '99999999999999999-2-3',
    ])
      expect(activityIdParts(id), id).toBeUndefined();
  });
});

describe('which entries are revertible', () => {
  it('refuses creations, comments, attachments, sprints, imports, descriptions and reorders, saying why', () => {
    const why = (event: string, fields: string[] = [], here = true, description = false) =>
      notRevertible({ event, changes: fields.map((field) => ({ field })) }, { recordedHere: here, description });
    expect(why('issue.created')).toMatch(/creation/);
    expect(why('issue.imported')).toMatch(/creation/);
    expect(why('issue.restored')).toMatch(/return from the trash/);
    expect(why('comment.updated', ['body'])).toMatch(/comment/);
    expect(why('attachment.added')).toMatch(/attachment/);
    expect(why('sprint.activated', ['status'])).toMatch(/sprint/);
    expect(why('issue.updated', ['title'], false)).toMatch(/import/);
    expect(why('issue.updated', ['title', 'description'])).toMatch(/description/);
    expect(why('issue.updated', ['title', 'description'], true, true)).toBeUndefined();
    expect(why('issue.updated', ['position'])).toMatch(/place/);
    expect(
      why('issue.updated', ['title', 'status', 'state_id', 'status_category', 'labels', 'sprint_id', 'parent_id']),
    ).toBeUndefined();
    expect(why('issue.updated', ['relations'])).toBeUndefined();
  });
});

describe('the write that reverts an entry', () => {
  it('sets back the values it replaced while the fields hold the values it wrote', () => {
    const entry = {
      changes: [
        { field: 'title', from: 'Before', to: 'Now' },
        { field: 'story_points', from: null, to: 5 },
        { field: 'sprint_id', from: 4, to: null },
      ],
    };
    expect(revertOf(entry, issue({ story_points: 5 }), {})).toEqual({
      write: { kind: 'update', changes: { title: 'Before', story_points: null, sprint_id: 4 } },
    });
  });

  it('names every field changed since, with its value now, and writes nothing', () => {
    const entry = {
      changes: [
        { field: 'title', from: 'Before', to: 'Then' },
        { field: 'story_points', from: null, to: 5 },
        { field: 'assignee_id', from: null, to: 2 },
      ],
    };
    expect(revertOf(entry, issue({ story_points: 5, assignee_id: 3 }), {})).toEqual({
      changed: [
        { field: 'title', value: 'Now' },
        { field: 'assignee_id', value: 3 },
      ],
    });
  });

  it('puts a state back by its id, or by its category where the entry recorded none, and names both when it moved on', () => {
    const byId = {
      changes: [
        { field: 'status', from: 'todo', to: 'review' },
        { field: 'state_id', from: 2, to: 9 },
      ],
    };
    expect(revertOf(byId, issue({ status: 'review', state_id: 9 }), {})).toEqual({
      write: { kind: 'update', changes: { state_id: 2 } },
    });
    expect(revertOf(byId, issue({ status: 'done', state_id: 4 }), {})).toEqual({
      changed: [
        { field: 'status', value: 'done' },
        { field: 'state_id', value: 4 },
      ],
    });
    const byCategory = { changes: [{ field: 'status', from: 'todo', to: 'done' }] };
    expect(revertOf(byCategory, issue({ status: 'done', status_category: 'done' }), {})).toEqual({
      write: { kind: 'update', changes: { status: 'todo' } },
    });
  });

  it('puts the description it replaced back while the text is the one it wrote', () => {
    const entry = { changes: [{ field: 'description' }] };
    const kept = { before: 'Old text', wrote: (now: string | null) => now === 'New text' };
    expect(revertOf(entry, issue({ description: 'New text' }), {}, kept)).toEqual({
      write: { kind: 'update', changes: { description: 'Old text' } },
    });
    expect(revertOf(entry, issue({ description: 'Edited since' }), {}, kept)).toEqual({
      changed: [{ field: 'description', value: 'Edited since' }],
    });
  });

  it('takes the labels added off and puts the removed back, keeping the others; 409 when they moved on', () => {
    const entry = { changes: [{ field: 'labels', from: [1, 2], to: [2, 3], added: [3], removed: [1] }] };
    expect(revertOf(entry, issue({ labels: [label(2), label(3), label(5)] }), {})).toEqual({
      write: { kind: 'update', changes: { labels: [1, 2, 5] } },
    });
    expect(revertOf(entry, issue({ labels: [label(2)] }), {})).toEqual({ changed: [{ field: 'labels', value: [2] }] });
    expect(revertOf(entry, issue({ labels: [label(1), label(3)] }), {})).toEqual({
      changed: [{ field: 'labels', value: [1, 3] }],
    });
  });

  it('removes a relation added while it is there, and relates again a relation removed while it is not back', () => {
    const relation = { id: '7-blocks-8', type: 'blocks' as const, issue: { id: 8, issue_number: 'UN-8', project_id: 3 } };
    const added = { changes: [{ field: 'relations', from: null, to: relation }] };
    const removed = { changes: [{ field: 'relations', from: relation, to: null }] };
    expect(revertOf(added, issue(), { [relation.id]: relation })).toEqual({
      write: { kind: 'unrelate', relationId: relation.id },
    });
    expect(revertOf(added, issue(), {})).toEqual({ changed: [{ field: 'relations', value: null }] });
    expect(revertOf(removed, issue(), {})).toEqual({ write: { kind: 'relate', type: 'blocks', issueKey: 'UN-8' } });
    expect(revertOf(removed, issue(), { [relation.id]: relation })).toEqual({
      changed: [{ field: 'relations', value: relation }],
    });
  });
});

describe("a revert's mark on the stream", () => {
  it('names the entry for the write that made its revision only', () => {
    const mark = { entry: '3-7-100', rev: 5 };
    expect(revertedBy({ rev: 4 }, { rev: 5, reverts: mark })).toBe('3-7-100');
    // A later write moves `rev` past the mark (and a write that moves nothing is no revert).
    expect(revertedBy({ rev: 5, reverts: mark }, { rev: 6, reverts: mark })).toBeUndefined();
    expect(revertedBy({ rev: 5, reverts: mark }, { rev: 5, reverts: mark })).toBeUndefined();
    expect(revertedBy({ rev: 4 }, { rev: 5 })).toBeUndefined();
  });
});

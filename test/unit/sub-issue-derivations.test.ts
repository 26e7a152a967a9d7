import { describe, expect, it } from 'vitest';
import {
  effectsOf,
  fold,
  parentSummary,
  repositioned,
  subIssueIndex,
  unclassified,
  type IssueState,
} from '../../lib/model/derivations.ts';

/** The two derivations of sub-issues, without a table: a parent's summary and its children index. */

const child = (over: Partial<IssueState> = {}): IssueState => ({
  orgId: 1,
  projectId: 2,
  id: 3,
  number: 'AB-3',
  sprintId: null,
  position: 1,
  status: 'todo',
  storyPoints: 3,
  assigneeId: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...unclassified,
  parentId: 9,
  parentNumber: 'AB-9',
  title: 'child',
  ...over,
});
const ctx = { day: '2026-01-02', history: true };
const only = [parentSummary.name, subIssueIndex.name];
const summaryOf = (changes: Parameters<typeof effectsOf>[0], issueId = 9) =>
  fold(effectsOf(changes, ctx, only)).holders.get(`issue:1:2:${issueId}`)?.attrs;

describe('sub-issue derivations', () => {
  it("count a child in its parent's summary, and put its record under the parent's number", () => {
    const state = fold(effectsOf([{ after: child({ status: 'done' }) }], ctx, only));
    expect(state.holders.get('issue:1:2:9')?.attrs).toEqual({
      subIssuesTotal: 1,
      subIssuesDone: 1,
      subIssuesPoints: 3,
      subIssuesDonePoints: 3,
    });
    expect([...state.records.values()]).toEqual([
      expect.objectContaining({
        kind: 'sub_issue',
        parentNumber: 'AB-9',
        parentId: 9,
        issueId: 3,
        status: 'done',
        title: 'child',
      }),
    ]);
  });

  it('move only the difference when a child changes, and both parents when it changes parent', () => {
    expect(summaryOf([{ before: child(), after: child({ status: 'done', storyPoints: 5 }) }])).toEqual({
      subIssuesDone: 1,
      subIssuesPoints: 2,
      subIssuesDonePoints: 5,
    });
    const moved = fold(effectsOf([{ before: child(), after: child({ parentId: 4, parentNumber: 'AB-4' }) }], ctx, only));
    expect(moved.holders.get('issue:1:2:9')?.attrs).toEqual({ subIssuesTotal: -1, subIssuesPoints: -3 });
    expect(moved.holders.get('issue:1:2:4')?.attrs).toEqual({ subIssuesTotal: 1, subIssuesPoints: 3 });
    const cleared = effectsOf([{ before: child(), after: child({ parentId: null, parentNumber: null }) }], ctx, only);
    expect(cleared.filter((e) => e.kind === 'remove')).toHaveLength(1);
    expect(cleared.filter((e) => e.kind === 'put')).toHaveLength(0);
  });

  it("leave the summary alone on a move between lists or a renumbering, and rewrite only the child's record", () => {
    expect(summaryOf([{ before: child(), after: child({ sprintId: 10, position: 99 }) }])).toBeUndefined();
    const effects = effectsOf([{ before: child(), after: child({ sprintId: 10 }) }], ctx, only);
    expect(effects).toEqual([{ kind: 'put', record: expect.objectContaining({ sprintId: 10 }) }]);
    expect(effectsOf([repositioned({ orgId: 1, projectId: 2, sprintId: null }, { id: 9, from: 1, to: 2 })], ctx, only)).toEqual(
      [],
    );
  });

  it('rebuild a summary only for parents that are there (a deleted parent whose cascade has not run counts nothing)', () => {
    const parent = child({ id: 9, number: 'AB-9', parentId: null, parentNumber: null });
    expect(parentSummary.rebuild([parent, child()]).holders.get('issue:1:2:9')?.attrs).toMatchObject({ subIssuesTotal: 1 });
    expect(parentSummary.rebuild([child()]).holders.size).toBe(0);
    // Its record stays until the cascade clears the child's parent.
    expect(subIssueIndex.rebuild([child()]).records.size).toBe(1);
  });
});

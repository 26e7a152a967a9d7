import { describe, expect, it } from 'vitest';
import {
  assigneeIndex,
  derivations,
  differences,
  effectsOf,
  fold,
  listCounters,
  numberPointer,
  openBlockers,
  rankBlocks,
  repositioned,
  sameRecord,
  type DerivedRecord,
  type IssueState,
} from '../../lib/model/derivations.ts';
import { BLOCK_SPAN } from '../../lib/model/positions.ts';

/** The derivations of an issue decide without a table: what a change writes, and what a rebuild holds. */

const issue = (over: Partial<IssueState> = {}): IssueState => ({
  orgId: 1,
  projectId: 2,
  id: 3,
  number: 'AB-3',
  sprintId: 10,
  position: 5 * BLOCK_SPAN + 1,
  status: 'todo',
  storyPoints: 3,
  assigneeId: 7,
  updatedAt: '2026-01-01T00:00:00.000Z',
  priority: 'none',
  type: 'task',
  dueDate: null,
  ...over,
});
const ctx = { day: '2026-01-02', history: true };

describe('derivations', () => {
  it('count a created sprint issue in its sprint with its history, its rank block, its pointer, its assignee and its search record', () => {
    const state = fold(effectsOf([{ after: issue() }], ctx));
    expect(state.holders.get('list:1:2:10')?.attrs).toEqual({
      issuesCount: 1,
      totalStoryPoints: 3,
      openIssuesCount: 1,
      openStoryPoints: 3,
      addedIssues: 1,
      addedPoints: 3,
      'burndown@2026-01-02': 3,
      rk_5: 1,
      // Its board column: its category's home (it has no state of its own).
      bc_h_todo: 1,
      bp_h_todo: 3,
    });
    expect(state.holders.get('account:1:7')?.attrs).toEqual({ assignedCount: 1 });
    expect([...state.records.keys()].sort()).toEqual(['assigned:1:7:2:3', 'pointer:1:AB-3', 'search:1:2:3']);
  });

  it("take back a delete's removed scope when an issue comes back from the trash: delete + restore change no counter", () => {
    const deleted = fold(effectsOf([{ before: issue() }], ctx));
    const both = fold(effectsOf([{ after: issue() }], { ...ctx, restoring: true }), deleted);
    const sprint = both.holders.get('list:1:2:10')?.attrs ?? {};
    expect(Object.entries(sprint).filter(([, v]) => v !== 0)).toEqual([]);
    expect(fold(effectsOf([{ after: issue() }], { ...ctx, restoring: true })).holders.get('list:1:2:10')?.attrs).toMatchObject({
      removedIssues: -1,
      removedPoints: -3,
      'burndown@2026-01-02': 3,
    });
    // Not restoring (the sprint activated since the delete): added scope, as any issue joining it.
    expect(fold(effectsOf([{ after: issue() }], ctx)).holders.get('list:1:2:10')?.attrs).not.toHaveProperty('removedIssues');
  });

  it('move counters, rank block, the assignee entry and the pointer (its list) when an issue moves to the backlog', () => {
    const before = issue();
    const after = issue({ sprintId: null, position: 9 * BLOCK_SPAN, updatedAt: '2026-01-02T00:00:00.000Z' });
    const effects = effectsOf([{ before, after }], ctx);
    const state = fold(effects);
    expect(state.holders.get('list:1:2:10')?.attrs).toMatchObject({ issuesCount: -1, removedIssues: 1, rk_5: -1 });
    expect(state.holders.get('list:1:2:backlog')?.attrs).toEqual({ backlogCount: 1, rk_9: 1, bc_h_todo: 1, bp_h_todo: 3 });
    expect(effects.filter((e) => (e.kind === 'put' || e.kind === 'remove') && e.record.kind === 'pointer')).toEqual([
      {
        kind: 'put',
        record: {
          kind: 'pointer',
          orgId: 1,
          number: before.number,
          projectId: 2,
          issueId: before.id,
          sprintId: null,
          position: 9 * BLOCK_SPAN,
        },
      },
    ]);
    expect(state.holders.has('account:1:7')).toBe(false);
  });

  it("put the pointer with the issue's new key when it moves within its list, and leave a renumbered neighbour's as it was", () => {
    const moved = effectsOf([{ before: issue(), after: issue({ position: 7 * BLOCK_SPAN + 3 }) }], ctx, ['number-pointer']);
    expect(moved).toEqual([{ kind: 'put', record: expect.objectContaining({ kind: 'pointer', position: 7 * BLOCK_SPAN + 3 }) }]);
    const neighbour = repositioned({ orgId: 1, projectId: 2, sprintId: 10 }, { id: 4, from: BLOCK_SPAN, to: 2 * BLOCK_SPAN });
    expect(effectsOf([neighbour], ctx, ['number-pointer'])).toEqual([]);
    // Other fields: no pointer.
    expect(effectsOf([{ before: issue(), after: issue({ status: 'done' }) }], ctx, ['number-pointer'])).toEqual([]);
  });

  it("take a pointer's list key for a hint: any agrees with the rebuild, none differs", () => {
    const rebuilt = numberPointer.rebuild([issue()]);
    const stored = (position: number | undefined) =>
      fold([{ kind: 'put', record: { ...(rebuilt.records.get('pointer:1:AB-3') as DerivedRecord), position } as DerivedRecord }]);
    expect(differences(numberPointer, rebuilt, stored(BLOCK_SPAN))).toEqual([]);
    expect(sameRecord(rebuilt.records.get('pointer:1:AB-3'), stored(undefined).records.get('pointer:1:AB-3'))).toBe(false);
    expect(differences(numberPointer, rebuilt, stored(undefined))).toHaveLength(1);
    // Its other fields still count.
    const elsewhere = fold([
      { kind: 'put', record: { ...(rebuilt.records.get('pointer:1:AB-3') as DerivedRecord), sprintId: null } as DerivedRecord },
    ]);
    expect(differences(numberPointer, rebuilt, elsewhere)).toHaveLength(1);
  });

  it('leave the sprint a completion empties without removed scope or burndown, and count the target with them', () => {
    const before = issue();
    const after = issue({ sprintId: 11, position: 6 * BLOCK_SPAN });
    const state = fold(effectsOf([{ before, after }], { ...ctx, completing: 10 }));
    expect(state.holders.get('list:1:2:10')?.attrs).toEqual({
      issuesCount: -1,
      totalStoryPoints: -3,
      openIssuesCount: -1,
      openStoryPoints: -3,
      rk_5: -1,
      bc_h_todo: -1,
      bp_h_todo: -3,
    });
    expect(state.holders.get('list:1:2:11')?.attrs).toMatchObject({ addedIssues: 1, 'burndown@2026-01-02': 3, rk_6: 1 });
  });

  it("see a renumbered neighbour only in the rank index and its search record's position", () => {
    const change = repositioned({ orgId: 1, projectId: 2, sprintId: 10 }, { id: 4, from: BLOCK_SPAN, to: 2 * BLOCK_SPAN });
    expect(effectsOf([change], ctx)).toEqual([
      { kind: 'add', holder: { kind: 'list', orgId: 1, projectId: 2, sprintId: 10 }, attr: 'rk_1', by: -1 },
      { kind: 'add', holder: { kind: 'list', orgId: 1, projectId: 2, sprintId: 10 }, attr: 'rk_2', by: 1 },
      { kind: 'patch', record: { kind: 'search', orgId: 1, projectId: 2, issueId: 4, position: 2 * BLOCK_SPAN } },
    ]);
  });

  it('hand the assignee over: the old entry and count go, the new ones come', () => {
    const effects = assigneeIndex.changes(issue(), issue({ assigneeId: 8 }), ctx);
    const state = fold(effects);
    expect(state.holders.get('account:1:7')?.attrs).toEqual({ assignedCount: -1 });
    expect(state.holders.get('account:1:8')?.attrs).toEqual({ assignedCount: 1 });
    expect([...state.records.keys()]).toEqual(['assigned:1:8:2:3']);
  });

  it('rewrite the assignee entry and set the one field of the search record, nothing else, when only priority, type or due date change', () => {
    for (const over of [{ priority: 'urgent' }, { type: 'bug' }, { dueDate: '2026-12-31' }] as const) {
      const effects = effectsOf([{ before: issue(), after: issue(over) }], ctx);
      expect(effects).toEqual([
        { kind: 'put', record: expect.objectContaining({ kind: 'assigned', ...over }) },
        { kind: 'patch', record: { kind: 'search', orgId: 1, projectId: 2, issueId: 3, ...over } },
      ]);
    }
  });
  it('rebuild from the issues alone, without history, what the writes of their creation hold', () => {
    const issues = [issue(), issue({ id: 4, number: 'AB-4', status: 'done', assigneeId: null, sprintId: null })];
    const written = fold(
      effectsOf(
        issues.map((after) => ({ after })),
        ctx,
      ),
    );
    for (const d of derivations) expect(differences(d, d.rebuild(issues), written)).toEqual([]);
    expect(listCounters.rebuild(issues).holders.get('list:1:2:10')?.attrs).not.toHaveProperty('addedIssues');
  });

  it('name the derivation whose state differs from its rebuild', () => {
    const issues = [issue()];
    const written = fold(effectsOf([{ after: issue() }], ctx, ['list-counters', 'number-pointer', 'assignee-index']));
    expect(differences(rankBlocks, rankBlocks.rebuild(issues), written)).toEqual([
      'rank-blocks: list:1:2:10 rk_5 is 0, rebuild says 1',
    ]);
    expect(differences(numberPointer, numberPointer.rebuild(issues), written)).toEqual([]);
  });

  describe('open-blockers', () => {
    const blocks = (issueId: number, projectId = 2) => ({
      id: `3-blocks-${issueId}`,
      type: 'blocks' as const,
      projectId,
      issueId,
    });
    const blockedBy = { id: '9-blocks-3', type: 'blocked_by' as const, projectId: 2, issueId: 9 };
    const counts = (before: IssueState | undefined, after: IssueState | undefined) =>
      fold(effectsOf([{ before, after }], ctx, ['open-blockers'])).holders;

    it('count an open blocker on each issue it blocks, and stop counting it once done or cancelled', () => {
      const open = issue({ relations: [blocks(4), blocks(5, 6), blockedBy] });
      expect(counts(open, { ...open, status: 'done' }).get('issue:1:2:4')?.attrs).toEqual({ openBlockers: -1 });
      expect(counts(open, { ...open, status: 'cancelled' }).get('issue:1:6:5')?.attrs).toEqual({ openBlockers: -1 });
      expect(counts({ ...open, status: 'done' }, { ...open, status: 'in_progress' }).get('issue:1:2:4')?.attrs).toEqual({
        openBlockers: 1,
      });
      // From one open status to another, or a closed one to another: nothing moves.
      expect(counts(open, { ...open, status: 'in_progress' }).size).toBe(0);
      expect(counts({ ...open, status: 'done' }, { ...open, status: 'cancelled' }).size).toBe(0);
      // Its own blocked_by relations count on its blockers' side, not here.
      expect(counts(open, { ...open, status: 'done' }).has('issue:1:2:9')).toBe(false);
    });

    it('count a blocks relation added or removed while the blocker is open, adds that are dropped when the holder is gone', () => {
      const open = issue({ relations: [blocks(4)] });
      const effects = effectsOf([{ before: open, after: { ...open, relations: [blocks(4), blocks(8)] } }], ctx, [
        'open-blockers',
      ]);
      expect(effects).toEqual([
        {
          kind: 'add',
          holder: { kind: 'issue', orgId: 1, projectId: 2, issueId: 8 },
          attr: 'openBlockers',
          by: 1,
          ifPresent: true,
        },
        // The blocked issue's search record keeps the same count (`is:blocked`).
        {
          kind: 'add',
          holder: { kind: 'search', orgId: 1, projectId: 2, issueId: 8 },
          attr: 'openBlockers',
          by: 1,
          ifPresent: true,
        },
      ]);
      const closed = { ...open, status: 'done' as const };
      expect(counts(closed, { ...closed, relations: [] }).size).toBe(0);
    });

    it('take a deleted issue off every issue it relates to, with the counts it held', () => {
      const open = issue({ relations: [blocks(4), blockedBy] });
      const effects = effectsOf([{ before: open }], ctx, ['open-blockers']);
      expect(effects).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'add',
            attr: 'openBlockers',
            by: -1,
            holder: expect.objectContaining({ issueId: 4 }),
          }),
          { kind: 'unlink', holder: { kind: 'issue', orgId: 1, projectId: 2, issueId: 4 }, relationId: '3-blocks-4' },
          { kind: 'unlink', holder: { kind: 'issue', orgId: 1, projectId: 2, issueId: 9 }, relationId: '9-blocks-3' },
          expect.objectContaining({
            kind: 'add',
            attr: 'openBlockers',
            by: -1,
            holder: expect.objectContaining({ kind: 'search', issueId: 4 }),
          }),
        ]),
      );
      expect(effects).toHaveLength(4);
    });

    it('rebuild as one count per open blocker', () => {
      const issues = [
        issue({ id: 3, relations: [blocks(4)] }),
        issue({ id: 5, status: 'done', relations: [{ ...blocks(4), id: '5-blocks-4' }] }),
        issue({ id: 6, relations: [{ ...blocks(4), id: '6-blocks-4' }] }),
      ];
      expect(openBlockers.rebuild(issues).holders.get('issue:1:2:4')?.attrs).toEqual({ openBlockers: 2 });
    });
  });
});

import { describe, expect, it } from 'vitest';
import { decodeSearchCursor, encodeSearchCursor, searchRange } from '../../lib/db/issues/search.ts';
import { updatedInterval } from '../../lib/services/search.ts';
import { matches, parseSelection, type SelectableIssue } from '../../lib/model/selection.ts';

/** The key range a search reads (lib/services/search.ts) and its cursors (lib/db/issues/search.ts). */

const now = Date.parse('2026-11-25T12:00:00.000Z');
const issue = (updated_at: string): SelectableIssue => ({
  id: 1,
  title: 't',
  project_prefix: 'APL',
  sprint_id: null,
  status: 'todo',
  assignee_id: null,
  author_id: 1,
  labels: [],
  priority: 'none',
  type: 'task',
  parent_id: null,
  story_points: null,
  created_at: updated_at,
  updated_at,
  due_date: null,
  blocked: false,
});

describe('the updated_at range of a search', () => {
  it('holds every issue the updated: conditions select (the key range is a superset, the evaluator decides)', () => {
    const queries = [
      'updated:>-1d',
      'updated:>=-7d updated:<-1d',
      'updated:2026-11-24',
      'updated:2026-11-01..2026-11-30',
      'updated:>2026-11-24',
      'updated:<=2026-11-24',
      '-updated:>-1d',
      'is:open',
      'updated:>-1d OR updated:<-10d',
      'updated:>-1d OR is:open',
      '(updated:>-2d updated:<-1d) OR updated:2026-11-01',
      '(updated:>-2d is:open) updated:<-1d',
      '-(updated:>-1d OR updated:<-20d)',
      'NOT updated:>-1d',
    ];
    const times = Array.from({ length: 200 }, (_, i) => new Date(now - i * 3 * 3_600_000 + (i % 7) * 1000).toISOString());
    for (const q of queries) {
      const selection = parseSelection(q);
      const { from, to } = updatedInterval(selection, now);
      const range = searchRange(from, to);
      for (const t of times) {
        if (!matches(selection, issue(t), { me: 1, now: new Date(now), activeSprintIds: new Set() })) continue;
        const key = `U#${t}#0000000001#0000000001`;
        expect(key >= range.from && key <= range.to, `${q}: ${t} in [${range.from}, ${range.to}]`).toBe(true);
      }
    }
  });

  it('narrows by the conditions that are not negated, and is open without them', () => {
    expect(updatedInterval(parseSelection('is:open'), now)).toEqual({});
    expect(updatedInterval(parseSelection('-updated:>-1d'), now)).toEqual({});
    expect(updatedInterval(parseSelection('updated:>-1d'), now)).toEqual({ from: now - 86_400_000 + 1 });
    expect(updatedInterval(parseSelection('updated:2026-11-24'), now)).toEqual({
      from: Date.parse('2026-11-24T00:00:00.000Z'),
      to: Date.parse('2026-11-25T00:00:00.000Z'),
    });
  });

  it('narrows by the updated: an AND group holds, never by one under OR or NOT (the whole range is read, the evaluator answers)', () => {
    expect(updatedInterval(parseSelection('updated:>-1d OR is:open'), now)).toEqual({});
    expect(updatedInterval(parseSelection('updated:>-1d OR updated:<-10d'), now)).toEqual({});
    expect(updatedInterval(parseSelection('NOT updated:>-1d'), now)).toEqual({});
    expect(updatedInterval(parseSelection('-(updated:>-1d is:open)'), now)).toEqual({});
    expect(updatedInterval(parseSelection('(updated:>-1d is:open) label:x'), now)).toEqual({ from: now - 86_400_000 + 1 });
    expect(updatedInterval(parseSelection('updated:>-1d (is:open OR updated:<-10d)'), now)).toEqual({
      from: now - 86_400_000 + 1,
    });
  });
});

describe('search cursors', () => {
  it('round-trip, and a forged or foreign one is a 422', () => {
    const key = {
      kind: 'key',
      at: { SK: 'ISSUE#0000000001#0000000002', LSK: 'U#2026-11-25T12:00:00.000Z#0000000002#0000000001' },
      m: 3,
    } as const;
    expect(decodeSearchCursor(encodeSearchCursor(key))).toEqual(key);
    expect(decodeSearchCursor(encodeSearchCursor({ kind: 'offset', o: 50 }))).toEqual({ kind: 'offset', o: 50 });
    const forged = [
      'garbage',
      Buffer.from(JSON.stringify({ s: 'PROJECT#0000000001', k: 'U#x', m: 0 })).toString('base64url'),
      Buffer.from(JSON.stringify({ s: key.at.SK, k: 'MI#x', m: 0 })).toString('base64url'),
      Buffer.from(JSON.stringify({ s: key.at.SK, k: key.at.LSK, m: -1 })).toString('base64url'),
      Buffer.from(JSON.stringify({ o: 1.5 })).toString('base64url'),
      Buffer.from(JSON.stringify({ PK: 'ORG#0000000002#SEARCH', s: key.at.SK, k: key.at.LSK, m: 0, o: 1 })).toString('base64url'),
    ];
    for (const cursor of forged)
      expect(() => decodeSearchCursor(cursor), cursor).toThrow(/cursor is not a cursor of this search/);
  });
});

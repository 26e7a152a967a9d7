import { describe, expect, it } from 'vitest';
import type { IssueItem } from '../../lib/db/issues/issues.ts';
import { PLACE_RUN, placeRuns } from '../../lib/services/my-issues.ts';
import { BLOCK_SPAN, RANK_PREFIX } from '../../lib/model/positions.ts';

/** How a page of /me/issues groups the issues of one list into place Queries (lib/services/my-issues.ts). */
describe('place runs of /me/issues', () => {
  // A list of 10 full blocks (32 issues each); the issue at place k sits in block floor((k-1)/32).
  const owner = Object.fromEntries(Array.from({ length: 10 }, (_, b) => [`${RANK_PREFIX}${b}`, 32]));
  const at = (place: number) => ({
    issue: { id: place, position: Math.floor((place - 1) / 32) * BLOCK_SPAN + ((place - 1) % 32) + 1 } as IssueItem,
    owner,
  });
  const shape = (places: number[]) =>
    placeRuns(places.map(at)).map((run) => ({
      ids: run.rows.map((r) => r.issue.id),
      fromBlock: run.fromBlock,
      before: run.before,
    }));

  it('puts the issues of a list in one run while their blocks hold at most PLACE_RUN issues from its start', () => {
    expect(PLACE_RUN).toBe(128);
    // Blocks 0..3 hold 128 issues: one Query from block 0 through the last of them.
    expect(shape([100, 5, 40])).toEqual([{ ids: [5, 40, 100], fromBlock: 0, before: 0 }]);
  });

  it('starts a new run at the first issue past that, counting the issues before its block', () => {
    expect(shape([5, 129, 200, 300, 310])).toEqual([
      { ids: [5], fromBlock: 0, before: 0 },
      { ids: [129, 200], fromBlock: 4, before: 128 },
      { ids: [300, 310], fromBlock: 9, before: 288 },
    ]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { page, renderedPage } from '../../tools/docs/data-model.ts';
import { layout } from '../../tools/docs/layout.ts';
import { issueItem, searchRecordItem } from '../../lib/db/issues/issue-item.ts';
import { labelItem } from '../../lib/db/issues/labels.ts';
import { commentPointerItem } from '../../lib/db/comments/comment-pointers.ts';
import { issueActivityItem } from '../../lib/db/issues/activity.ts';
import { sequencesItem } from '../../lib/db/core/sequences.ts';
import { subIssueItem } from '../../lib/db/issues/sub-issues.ts';

describe('docs/data-model.md', () => {
  it('shows the layout and the declared attributes as tools/docs/layout.ts declares them (npm run docs:data-model)', () => {
    const current = readFileSync(page, 'utf8');
    expect(current).toBe(renderedPage(current));
  });

  it('lists only kinds declared with their attributes (lib/db/core/item.ts): none written by hand', () => {
    const undeclared = layout.filter((r) => Object.keys(r.attributes).length === 0).map((r) => `${r.PK} ${r.SK}`);
    expect(undeclared).toEqual([]);
    for (const kind of [labelItem, commentPointerItem, issueActivityItem, sequencesItem, subIssueItem]) {
      expect(layout.filter((r) => r.attributes === kind.attributes && r.SK === kind.key.SK)).toHaveLength(1);
    }
  });

  it('lists each declared kind with its key once', () => {
    const rows = layout.map((r) => `${r.PK} ${r.SK} ${r.about}`);
    expect(new Set(rows).size).toBe(rows.length);
    for (const kind of [issueItem, searchRecordItem]) {
      expect(layout.filter((r) => r.PK === kind.key.PK && r.SK === kind.key.SK && r.attributes === kind.attributes)).toHaveLength(
        1,
      );
    }
  });
});

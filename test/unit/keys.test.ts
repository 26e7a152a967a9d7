import { describe, expect, it } from 'vitest';
import {
  collections,
  commentPointerOf,
  keys,
  listKeys,
  orgPk,
  padPosition,
  parseProjectPk,
  projectPk,
} from '../../lib/db/core/keys.ts';

describe('keys', () => {
  it('embed the organisation in every key of organisation data', () => {
    const org = 42;
    const orgKeys = [
      keys.org(org),
      keys.sequences(org),
      keys.account(org, 1),
      keys.email(org, 'a@example.com'),
      keys.project(org, 1),
      keys.prefix(org, 'AB'),
      keys.sprint(org, 1, 2),
      keys.issue(org, 1, 3),
      keys.comment(org, 1, 3, 4),
      keys.commentPointer(org, 4),
    ];
    for (const key of orgKeys) expect(key.PK.startsWith(orgPk(org)), key.PK).toBe(true);
    for (const c of Object.values(collections)) expect(c(org, 1, 2).pk.startsWith(orgPk(org))).toBe(true);
  });

  it("name a comment's pointer from the comment's key, and nothing's from any other key", () => {
    expect(commentPointerOf(keys.comment(42, 1, 3, 4))).toEqual(keys.commentPointer(42, 4));
    expect(commentPointerOf(keys.issue(42, 1, 3))).toBeUndefined();
    expect(commentPointerOf(keys.issueActivity(42, 1, 3, '17'))).toBeUndefined();
    expect(commentPointerOf(keys.sprint(42, 1, 2))).toBeUndefined();
  });

  it("never let one organisation's keys name another's data", () => {
    // org 1 and org 12 share a decimal prefix; padding keeps their partitions apart.
    expect(keys.project(1, 23).PK).not.toBe(keys.project(12, 3).PK);
    expect(projectPk(1, 23)).not.toBe(projectPk(12, 3));
    expect(projectPk(1, 2).startsWith(orgPk(12))).toBe(false);
    expect(keys.project(1, 5)).not.toEqual(keys.project(2, 5));
  });

  it('are case-insensitive on e-mail addresses', () => {
    expect(keys.email(1, 'Ada@Example.COM')).toEqual(keys.email(1, 'ada@example.com'));
  });

  it('keep numeric order as string order (padding)', () => {
    const ids = [1, 2, 9, 10, 11, 99, 100, 12345, 2_147_483_647, 9_999_999_999];
    const sorted = (xs: string[]) => [...xs].sort();
    for (const make of [listKeys.account, listKeys.project, listKeys.sprint, (id: number) => listKeys.comment(7, id)]) {
      const ks = ids.map(make);
      expect(sorted(ks)).toEqual(ks);
    }
    const positions = [0, 1, 2, 10, 1000, 2 ** 32, Number.MAX_SAFE_INTEGER];
    const ps = positions.map(padPosition);
    expect(sorted(ps)).toEqual(ps);
    const sprintIssues = positions.map((p) => listKeys.sprintIssue(3, p, 1));
    expect(sorted(sprintIssues)).toEqual(sprintIssues);
    const backlog = positions.map((p) => listKeys.backlogIssue(p, 1));
    expect(sorted(backlog)).toEqual(backlog);
    // Same position: the id breaks the tie, in numeric order too.
    expect(sorted([listKeys.backlogIssue(5, 10), listKeys.backlogIssue(5, 9)])).toEqual([
      listKeys.backlogIssue(5, 9),
      listKeys.backlogIssue(5, 10),
    ]);
  });

  it('put each list key under its collection prefix, and no other', () => {
    const org = 3;
    const inside: [ReturnType<typeof collections.sprintIssues>, string][] = [
      [collections.accounts(org), listKeys.account(9)],
      [collections.projects(org), listKeys.project(9)],
      [collections.sprints(org, 1), listKeys.sprint(9)],
      [collections.sprintIssues(org, 1, 2), listKeys.sprintIssue(2, 0, 9)],
      [collections.backlogIssues(org, 1), listKeys.backlogIssue(0, 9)],
      [collections.comments(org, 1, 2), listKeys.comment(2, 9)],
    ];
    for (const [c, lsk] of inside) expect(lsk.startsWith(c.prefix), lsk).toBe(true);
    // Sprint 1's issues are not under sprint 12's prefix, nor issue 1's comments under issue 12's.
    expect(listKeys.sprintIssue(12, 0, 1).startsWith(collections.sprintIssues(org, 1, 1).prefix)).toBe(false);
    expect(listKeys.comment(12, 1).startsWith(collections.comments(org, 1, 1).prefix)).toBe(false);
    expect(listKeys.sprintIssue(1, 0, 1).startsWith(collections.backlogIssues(org, 1).prefix)).toBe(false);
  });

  it('let the cascade read the ids back out of a project partition', () => {
    expect(parseProjectPk(projectPk(7, 123))).toEqual({ orgId: 7, projectId: 123 });
    expect(parseProjectPk(orgPk(7))).toBeUndefined();
    expect(parseProjectPk('TOKEN#abc')).toBeUndefined();
  });
});

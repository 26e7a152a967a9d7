import { batchGet, getItem } from '../core/transactions.ts';
import { attribute, itemKind } from '../core/item.ts';
import { keys } from '../core/keys.ts';

/**
 * Lookups by what a person reads on an issue ("APL-12") rather than by the keys a path carries:
 * the create transaction writes a pointer per issue number (`ISSUEKEY#APL-12` in the organisation's
 * partition), deleted with the issue, or by the cascade of its project or sprint (lib/jobs/cascade.ts)
 * while it still points to that issue: a pointer read before its cascade leads to a missing
 * project or issue (404), and a new project that reuses the prefix overwrites it.
 */

/** An issue number's pointer (the `issue-key` derivation, lib/model/derivations.ts), declared once. */
export const issueKeyItem = itemKind({
  type: 'issue_key',
  key: keys.issueKey.placement,
  about: 'issue number → project, issue id, list and list key',
  attributes: {
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    /** The issue's sprint (null: the backlog); undefined on a pointer written before it was kept (`issues:reindex` adds it). */
    sprintId: attribute.whole<number | null, 'sprint_id'>('sprint_id'),
    /**
     * The issue's stored list key as of the pointer's last write: a hint, which a neighbour's respace
     * leaves behind (lib/model/derivations.ts: `numberPointer`); undefined on a pointer written before it was kept.
     */
    position: attribute.laterNumber('position'),
  },
});

/** Where a pointer leads: its project, its issue and (unless written before they were kept) the issue's list and list key. */
export interface PointedIssue {
  projectId: number;
  issueId: number;
  sprintId: number | null | undefined;
  /** A hint: the issue's list key when the pointer was last written. */
  position: number | undefined;
}

/** Where a pointer read leads. */
export const pointedIssue = (item: object): PointedIssue => {
  const { projectId, issueId, position } = issueKeyItem.decode(item);
  const stored = (item as Record<string, unknown>)[issueKeyItem.stored('sprintId')];
  return { projectId, issueId, sprintId: stored === undefined ? undefined : stored === null ? null : Number(stored), position };
};

/** The project, issue, list and list key (a hint) an issue number points to: one consistent GetItem. */
export async function issueOfNumber(orgId: number, issueNumber: string): Promise<PointedIssue | undefined> {
  const item = await getItem(keys.issueKey(orgId, issueNumber));
  return item && pointedIssue(item);
}

/** Where each of `issueNumbers` ("APL-42") points, in their order (one BatchGetItem per 100, consistent). */
export async function issuesOfNumbers(orgId: number, issueNumbers: string[]): Promise<(PointedIssue | undefined)[]> {
  if (issueNumbers.length === 0) return [];
  const found = await batchGet(issueNumbers.map((n) => keys.issueKey(orgId, n)));
  return found.map((item) => item && pointedIssue(item));
}

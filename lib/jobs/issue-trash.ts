import { isClosed, type RelationRef } from '../model/derivations.ts';
import type { StateWrite } from '../model/workflow.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import type { ParentGuard } from '../db/issues/issue-write.ts';
import { issueRefId, readIssues, storedRelationRefs, writeRestoredIssue } from '../db/issues/issue-restore.ts';
import { childrenOf, type SubIssueRecord } from '../db/issues/sub-issues.ts';

/**
 * An issue's way back from the organisation's trash (docs/trash.md): what its restore reads
 * beside the trash item, and what it decides on that. Its write, one issue write as a create is,
 * is lib/db/issues/issue-restore.ts.
 */

/**
 * What a restore reads before it writes, beside the trash item (lib/services/issue-trash.ts): the
 * other issues of its relations (one BatchGetItem, when it had relations) and its children now
 * (their records under its number: one Query, when it had children), in parallel.
 */
export interface IssueSurroundings {
  /** The other issues of its relations as read, by `<project>:<issue>`; undefined: gone. */
  others: Map<string, Record<string, unknown> | undefined>;
  /** Its children now (those that kept their link while it was in the trash). */
  children: SubIssueRecord[];
  /** Its parent as read now (undefined: it had none, or it is gone). */
  parent: Record<string, unknown> | undefined;
  /** The most relations an issue may hold: a relation whose other issue holds that many stays off. */
  maxRelations: number;
}

/** Reads what a restore of `stored` decides on (`IssueSurroundings`): nothing when it had neither relations, children nor a parent. */
export async function readSurroundings(
  orgId: number,
  stored: Record<string, unknown>,
  maxRelations: number,
): Promise<IssueSurroundings> {
  const i = issueItem.decode(stored);
  const wanted = [...new Map(storedRelationRefs(stored).map((r) => [issueRefId(r.projectId, r.issueId), r])).values()];
  // Its parent in the same BatchGetItem.
  const parent = i.parentId === null ? [] : [{ projectId: i.projectId, issueId: i.parentId }];
  const [found, children] = await Promise.all([
    wanted.length + parent.length === 0 ? [] : readIssues(orgId, [...wanted, ...parent]),
    i.subIssuesTotal > 0 ? childrenOf(orgId, { projectId: i.projectId, issueId: i.id, number: i.number }) : [],
  ]);
  return {
    others: new Map(wanted.map((r, n) => [issueRefId(r.projectId, r.issueId), found[n]])),
    children,
    parent: parent.length === 0 ? undefined : found[wanted.length],
    maxRelations,
  };
}

/** Where a restored issue goes. */
export interface IssueReturn {
  /** Its list: the sprint it was in (as stored), or the backlog (null). */
  sprintId: number | null;
  /** Its stored sort key in that list: its own, or one appended at the end. */
  position: number;
  /**
   * Whether its return takes back the scope its delete removed from its sprint (the sprint not
   * activated since the delete: `ChangeContext.restoring`), rather than adding scope. The sprint's
   * update is refused `sprint` when it was activated since.
   */
  undoRemoval: boolean;
  /**
   * Its parent link: `counted` (the parent is there and takes it within the sub-issue rules: its
   * summary and children index take it back, on condition of `guard`), `dropped` (the parent is
   * gone, in the trash, or has no room: it comes back without a parent).
   */
  parent: 'counted' | 'dropped';
  /** The parent's state the decision was made on (its children and chain, as a PATCH's `parent_id`): refused `stale`. */
  guard?: ParentGuard | undefined;
  /**
   * The state it comes back in when the one it was stored in was deleted while it was away
   * (`stateOnReturn`); absent: its own, on condition that it is still there (refused `state`).
   */
  state?: StateWrite;
}

/**
 * Brings trashed issue `stored` (as it was stored) back in one transaction
 * (lib/db/issues/issue-restore.ts: `writeRestoredIssue`) at `back`'s place: with its relations
 * whose other issue is still there and has room, blocked by those of them that block it and are
 * open, its children's summary as they are now, and a new version when it does not come back as
 * it was. Refusals: `project` (gone), `sprint` (gone, being completed, or, with `undoRemoval`,
 * activated since the delete), `number_taken`, `issue_exists` (there again), `assignee`, `issue`
 * (its parent gone), `trashed` (restored or purged meanwhile).
 */
export async function restoreIssue(
  orgId: number,
  stored: Record<string, unknown>,
  deletedAt: string,
  back: IssueReturn,
  around: IssueSurroundings,
): Promise<void> {
  const i = issueItem.decode(stored);
  const moved = back.sprintId !== i.sprintId || back.position !== i.position;
  // Its relations whose other issue is still there (and holds fewer than the most it may), each
  // put back on that issue's side too; blocked by those of them that block it and are open.
  const kept = keptRelations(stored, around);
  const blockedBy = kept.filter((r) => r.type === 'blocked_by' && isOpen(around, r)).length;
  const unlinked = (back.parent === 'dropped' && i.parentId !== null) || kept.length < i.relations.length;
  const restore = {
    sprintId: back.sprintId,
    position: back.position,
    moved,
    changed: moved || unlinked || back.state !== undefined,
    dropParent: back.parent === 'dropped',
    state: back.state,
    summary: summaryOf(around.children),
    kept: kept.map((r) => r.id),
    blockedBy,
    undoRemoval: back.undoRemoval,
    parentGuard: back.parent === 'counted' ? back.guard : undefined,
  };
  await writeRestoredIssue(orgId, stored, deletedAt, restore, around.others);
}

/** A child's part of its parent's `sub_issues_summary`, summed over its children now. */
function summaryOf(children: SubIssueRecord[]) {
  const done = children.filter((c) => c.status === 'done');
  const points = (of: SubIssueRecord[]) => of.reduce((sum, c) => sum + (c.storyPoints ?? 0), 0);
  return {
    subIssuesTotal: children.length,
    subIssuesDone: done.length,
    subIssuesPoints: points(children),
    subIssuesDonePoints: points(done),
  };
}

const isOpen = (around: IssueSurroundings, r: RelationRef) => {
  const other = around.others.get(issueRefId(r.projectId, r.issueId));
  return other !== undefined && !isClosed(issueItem.field(other, 'status'));
};

/** The relations of `stored` whose other issue is still there and has room for one more. */
function keptRelations(stored: Record<string, unknown>, around: IssueSurroundings): RelationRef[] {
  const kept: RelationRef[] = [];
  const gaining = new Map<string, number>();
  for (const r of storedRelationRefs(stored)) {
    const key = issueRefId(r.projectId, r.issueId);
    const other = around.others.get(key);
    if (!other) continue;
    const held = storedRelationRefs(other).length + (gaining.get(key) ?? 0);
    if (held >= around.maxRelations) continue;
    gaining.set(key, (gaining.get(key) ?? 0) + 1);
    kept.push(r);
  }
  return kept;
}

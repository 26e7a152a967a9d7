import { tableName } from '../core/client.ts';
import { isClosed } from '../../model/derivations.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import {
  issueWriteItems,
  listOwnerUpdate,
  pullRequestCountsOf,
  sendIssueWrite,
  type ParentGuard,
} from '../issues/issue-write.ts';
import { keys, listKeys } from '../core/keys.ts';
import { otherSideOf, storedRelations, type StoredRelation } from '../issues/relations.ts';
import { childrenOf, type SubIssueRecord } from '../issues/sub-issues.ts';
import { batchGet, existsCheck, revisionCondition, type GuardedItem } from '../core/transactions.ts';
import { trashedIssueKey, trashRemovalOf, whereIs } from '../core/trash.ts';
import { VERSION_ATTRIBUTE } from '../core/versions.ts';
import type { StateWrite } from '../../model/workflow.ts';

/**
 * An issue's way back from the organisation's trash (docs/trash.md). Its delete (lib/db/issues/issues.ts,
 * `deleteIssue`) put it there whole; its restore is one issue write (lib/db/issues/issue-write.ts), as a
 * create is: the issue as it was stored, and what every derivation keeps of it (its list's
 * counters and rank index, its number's pointer, its assignee's entry and count, its parent's
 * summary and children index, its search record), with the trash item's removal.
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

const otherKey = (projectId: number, issueId: number) => `${projectId}:${issueId}`;

/** Reads what a restore of `stored` decides on (`IssueSurroundings`): nothing when it had neither relations, children nor a parent. */
export async function readSurroundings(
  orgId: number,
  stored: Record<string, unknown>,
  maxRelations: number,
): Promise<IssueSurroundings> {
  const i = issueItem.decode(stored);
  const wanted = [
    ...new Map(Object.values(storedRelations(stored)).map((r) => [otherKey(r.project_id, r.issue_id), r])).values(),
  ];
  // Its parent in the same BatchGetItem.
  const parentKey = i.parentId === null ? [] : [keys.issue(orgId, i.projectId, i.parentId)];
  const [found, children] = await Promise.all([
    wanted.length + parentKey.length === 0
      ? []
      : batchGet([...wanted.map((r) => keys.issue(orgId, r.project_id, r.issue_id)), ...parentKey]),
    i.subIssuesTotal > 0 ? childrenOf(orgId, { projectId: i.projectId, issueId: i.id, number: i.number }) : [],
  ]);
  return {
    others: new Map(wanted.map((r, n) => [otherKey(r.project_id, r.issue_id), found[n]])),
    children,
    parent: parentKey.length === 0 ? undefined : found[wanted.length],
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
 * Brings trashed issue `stored` (as it was stored) back in one transaction: the issue with its id,
 * number, fields, counters and version (marked `restoredAt`, so that its write is no
 * `issue.created`), at `back`'s place; what the derivations keep of it; a check that its project
 * is there (the backlog's owner is the project itself); its number's pointer, only while no issue
 * of another project holds it; and the trash item's delete. Refusals: `project` (gone), `sprint`
 * (gone, being completed, or, with `undoRemoval`, activated since the delete), `number_taken`,
 * `issue_exists` (there again), `assignee`, `issue` (its parent gone), `trashed` (restored or
 * purged meanwhile).
 */
export async function restoreIssue(
  orgId: number,
  stored: Record<string, unknown>,
  deletedAt: string,
  back: IssueReturn,
  around: IssueSurroundings,
): Promise<void> {
  const i = issueItem.decode(stored);
  const { projectId } = i;
  const moved = back.sprintId !== i.sprintId || back.position !== i.position;
  const stateId = back.state ? back.state.state_id : i.stateId;
  // Its relations whose other issue is still there (and holds fewer than the most it may), each
  // put back on that issue's side too; blocked by those of them that block it and are open.
  const kept = keptRelations(stored, around);
  const blockedBy = Object.values(kept).filter((r) => r.type === 'blocked_by' && isOpen(around, r)).length;
  const unlinked = (back.parent === 'dropped' && i.parentId !== null) || Object.keys(kept).length < i.relations.length;
  const changed = moved || unlinked || back.state !== undefined;
  const version = Number(stored[VERSION_ATTRIBUTE] ?? 1);
  const item: Record<string, unknown> = {
    ...stored,
    // Its own version (a Put made for a request would otherwise start again at 1, lib/db/core/stamps.ts);
    // one more when it does not come back as it was, so that no ETag of before matches it.
    [VERSION_ATTRIBUTE]: changed ? version + 1 : version,
    ...(changed ? issueItem.encode({ rev: i.rev + 1 }) : {}),
    ...(moved
      ? {
          ...issueItem.encode({ sprintId: back.sprintId, position: back.position }),
          LSK:
            back.sprintId === null
              ? listKeys.backlogIssue(back.position, i.id)
              : listKeys.sprintIssue(back.sprintId, back.position, i.id),
        }
      : {}),
    ...issueItem.encode({ restoredAt: new Date().toISOString() }),
    ...(back.parent === 'dropped' ? issueItem.encode({ parentId: null, parentNumber: null }) : {}),
    // Stored attribute names, as the state's delete writes them on the issues that were there.
    ...(back.state ?? {}),
    ...issueItem.encode(summaryOf(around.children)),
  };
  if (Object.keys(kept).length > 0) item[issueItem.stored('relations')] = kept;
  else delete item[issueItem.stored('relations')];
  item[issueItem.stored('openBlockers')] = blockedBy;
  const items = issueWriteItems({
    orgId,
    projectId,
    issues: [
      {
        item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        reason: 'issue_exists',
      },
      ...otherSides(orgId, i, kept, around),
    ],
    changes: [{ after: issueStateOf(orgId, item) }],
    ctx: { restoring: back.undoRemoval },
    owner: (sprintId, add) => {
      const update = listOwnerUpdate(orgId, projectId, sprintId, add, sprintId === null ? 'project' : 'sprint');
      return sprintId !== null && back.undoRemoval ? notActivatedSince(update, deletedAt) : update;
    },
    owners: [back.sprintId],
    ...(back.parent === 'counted' && back.guard ? { parentGuard: back.guard } : {}),
    checks: [
      ...(back.sprintId === null ? [] : [existsCheck(keys.project(orgId, projectId), 'project')]),
      // Its state, still there: one deleted meanwhile is decided on the workflow (`stateOnReturn`).
      ...(stateId === null ? [] : [existsCheck(keys.state(orgId, projectId, stateId), 'state')]),
    ],
    tail: trashRemovalOf(orgId, 'issue', i.id, deletedAt, 'restored'),
    returning: { openBlockers: new Map([[i.id, blockedBy]]), prs: pullRequestCountsOf([stored]) },
  });
  await sendIssueWrite(items);
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

const isOpen = (around: IssueSurroundings, r: StoredRelation) => {
  const other = around.others.get(otherKey(r.project_id, r.issue_id));
  return other !== undefined && !isClosed(issueItem.field(other, 'status'));
};

/** The stored relations of `stored` whose other issue is still there and has room for one more. */
function keptRelations(stored: Record<string, unknown>, around: IssueSurroundings): Record<string, StoredRelation> {
  const kept: Record<string, StoredRelation> = {};
  const gaining = new Map<string, number>();
  for (const [id, r] of Object.entries(storedRelations(stored))) {
    const key = otherKey(r.project_id, r.issue_id);
    const other = around.others.get(key);
    if (!other) continue;
    const held = Object.keys(storedRelations(other)).length + (gaining.get(key) ?? 0);
    if (held >= around.maxRelations) continue;
    gaining.set(key, (gaining.get(key) ?? 0) + 1);
    kept[id] = r;
  }
  return kept;
}

/**
 * The other issues' sides of the kept relations: one Update per other issue, on condition that it
 * is at the revision read (refused `stale`: read again), its revision moved on. Its count of open
 * blockers, when the restored issue blocks it, is folded in by lib/db/issues/issue-write.ts.
 */
function otherSides(
  orgId: number,
  restored: ReturnType<typeof issueItem.decode>,
  kept: Record<string, StoredRelation>,
  around: IssueSurroundings,
): GuardedItem[] {
  const byOther = new Map<string, [string, StoredRelation][]>();
  for (const [id, r] of Object.entries(kept)) {
    const key = otherKey(r.project_id, r.issue_id);
    byOther.set(key, [...(byOther.get(key) ?? []), [id, r]]);
  }
  return [...byOther.entries()].map(([key, relations]) => {
    const other = around.others.get(key)!;
    const first = relations[0]![1];
    const sides = Object.fromEntries(relations.map(([id, r]): [string, StoredRelation] => [id, otherSideOf(r, restored)]));
    const rev = issueItem.field(other, 'rev');
    const names: Record<string, string> = { '#relations': issueItem.stored('relations') };
    const values: Record<string, unknown> = { ':one': 1, ':rev': rev };
    const had = other[issueItem.stored('relations')] !== undefined;
    const sets = had
      ? Object.entries(sides).map(([id, side], n) => {
          names[`#r${n}`] = id;
          values[`:r${n}`] = side;
          return `#relations.#r${n} = :r${n}`;
        })
      : ['#relations = :all'];
    if (!had) values[':all'] = sides;
    return {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, first.project_id, first.issue_id),
          UpdateExpression: `SET ${sets.join(', ')} ADD rev :one`,
          ConditionExpression: `attribute_exists(PK) AND ${revisionCondition(rev)}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      reason: 'stale',
    } satisfies GuardedItem;
  });
}

/** A sprint's update, also on condition that the sprint was not activated after `deletedAt` (its history restarted). */
function notActivatedSince(update: GuardedItem, deletedAt: string): GuardedItem {
  const item = update.item as {
    Update?: {
      ConditionExpression?: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
    };
    ConditionCheck?: {
      ConditionExpression?: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
    };
  };
  const op = item.Update ?? item.ConditionCheck;
  if (!op) return update;
  op.ConditionExpression = `${op.ConditionExpression} AND (attribute_not_exists(#restore_activated) OR #restore_activated < :restore_deleted)`;
  op.ExpressionAttributeNames = { ...op.ExpressionAttributeNames, '#restore_activated': 'activated_at' };
  op.ExpressionAttributeValues = { ...op.ExpressionAttributeValues, ':restore_deleted': deletedAt };
  return update;
}

/**
 * Where issue `issueId` is: there, in the trash (where what lives under it waits for a restore), or
 * gone for good. One TransactGetItems reads both, so a restore (which writes the issue and deletes
 * the trash item at once) is never seen half done.
 */
export async function whereIssueIs(orgId: number, projectId: number, issueId: number) {
  return whereIs(keys.issue(orgId, projectId, issueId), trashedIssueKey(orgId, issueId));
}

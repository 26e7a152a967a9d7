import type { RelationRef } from '../../model/derivations.ts';
import type { StateWrite } from '../../model/workflow.ts';
import { tableName } from '../core/client.ts';
import { keys, listKeys } from '../core/keys.ts';
import { batchGet, existsCheck, revisionCondition, type GuardedItem } from '../core/transactions.ts';
import { trashedIssueKey, trashRemovalOf, whereIs } from '../core/trash.ts';
import { VERSION_ATTRIBUTE } from '../core/versions.ts';
import { issueItem, issueStateOf, type StoredIssue } from './issue-item.ts';
import { issueWriteItems, listOwnerUpdate, pullRequestCountsOf, sendIssueWrite, type ParentGuard } from './issue-write.ts';
import { otherSideOf, storedRelations, type StoredRelation } from './relations.ts';

/**
 * The reads and the write of an issue's restore from the organisation's trash (docs/trash.md;
 * lib/jobs/issue-trash.ts decides it). Its delete (lib/db/issues/issues.ts, `deleteIssue`) put it
 * there whole; its restore is one issue write (lib/db/issues/issue-write.ts), as a create is: the
 * issue as it was stored, and what every derivation keeps of it (its list's counters and rank
 * index, its number's pointer, its assignee's entry and count, its parent's summary and children
 * index, its search record), with the trash item's removal.
 */

/** An issue, by its project and id. */
export interface IssueRef {
  projectId: number;
  issueId: number;
}

/** The id a restore keeps the other issues it read by. */
export const issueRefId = (projectId: number, issueId: number) => `${projectId}:${issueId}`;

/** The relations an issue item holds, in the order they are stored (its decode sorts them by id). */
export const storedRelationRefs = (item: Record<string, unknown> | undefined): RelationRef[] =>
  Object.entries(storedRelations(item)).map(([id, r]) => ({ id, type: r.type, projectId: r.project_id, issueId: r.issue_id }));

/** Issues as stored (undefined: not there), in one consistent BatchGetItem. */
export const readIssues = (orgId: number, refs: IssueRef[]) =>
  batchGet(refs.map((r) => keys.issue(orgId, r.projectId, r.issueId)));

/**
 * Where issue `issueId` is: there, in the trash (where what lives under it waits for a restore), or
 * gone for good. One TransactGetItems reads both, so a restore (which writes the issue and deletes
 * the trash item at once) is never seen half done.
 */
export async function whereIssueIs(orgId: number, projectId: number, issueId: number) {
  return whereIs(keys.issue(orgId, projectId, issueId), trashedIssueKey(orgId, issueId));
}

/** How a trashed issue comes back, as its restore decided it. */
export interface IssueRestore {
  /** Its list (null: the backlog) and its stored sort key there. */
  sprintId: number | null;
  position: number;
  /** Whether that is another place than the one it was stored at. */
  moved: boolean;
  /** Whether it comes back otherwise than it was stored: its version and revision move on. */
  changed: boolean;
  /** Whether it comes back without its parent. */
  dropParent: boolean;
  /** The state it comes back in, when its own was deleted meanwhile (absent: its own, still there). */
  state: StateWrite | undefined;
  /** Its children's summary now. */
  summary: Pick<StoredIssue, 'subIssuesTotal' | 'subIssuesDone' | 'subIssuesPoints' | 'subIssuesDonePoints'>;
  /** The ids of the relations it keeps, each put back on its other issue too. */
  kept: string[];
  /** Its count of open blockers among them. */
  blockedBy: number;
  /** Whether it takes back the scope its delete removed from its sprint (`ChangeContext.restoring`). */
  undoRemoval: boolean;
  /** Its parent's state, when its parent takes it back. */
  parentGuard: ParentGuard | undefined;
}

/** The issue item a restore puts: `stored` as it was, with what `restore` changes. */
function restoredItem(stored: Record<string, unknown>, restore: IssueRestore, kept: Record<string, StoredRelation>) {
  const i = issueItem.decode(stored);
  const version = Number(stored[VERSION_ATTRIBUTE] ?? 1);
  const item: Record<string, unknown> = {
    ...stored,
    // Its own version (a Put made for a request would otherwise start again at 1, lib/db/core/stamps.ts);
    // one more when it does not come back as it was, so that no ETag of before matches it.
    [VERSION_ATTRIBUTE]: restore.changed ? version + 1 : version,
    ...(restore.changed ? issueItem.encode({ rev: i.rev + 1 }) : {}),
    ...(restore.moved
      ? {
          ...issueItem.encode({ sprintId: restore.sprintId, position: restore.position }),
          LSK:
            restore.sprintId === null
              ? listKeys.backlogIssue(restore.position, i.id)
              : listKeys.sprintIssue(restore.sprintId, restore.position, i.id),
        }
      : {}),
    ...issueItem.encode({ restoredAt: new Date().toISOString() }),
    ...(restore.dropParent ? issueItem.encode({ parentId: null, parentNumber: null }) : {}),
    // Stored attribute names, as the state's delete writes them on the issues that were there.
    ...(restore.state ?? {}),
    ...issueItem.encode(restore.summary),
  };
  if (Object.keys(kept).length > 0) item[issueItem.stored('relations')] = kept;
  else delete item[issueItem.stored('relations')];
  item[issueItem.stored('openBlockers')] = restore.blockedBy;
  return item;
}

/**
 * Brings trashed issue `stored` (as it was stored) back in one transaction, as `restore` says: the
 * issue with its id, number, fields, counters and version (marked `restoredAt`, so that its write
 * is no `issue.created`); what the derivations keep of it; the other sides of its kept relations
 * (`others`: the other issues as read, by `issueRefId`); a check that its project is there (the
 * backlog's owner is the project itself) and that its state is; its number's pointer, only while
 * no issue of another project holds it; and the trash item's delete. Refusals: `project` (gone),
 * `sprint` (gone, being completed, or, with `undoRemoval`, activated since the delete),
 * `number_taken`, `issue_exists` (there again), `assignee`, `issue` (its parent gone), `state`,
 * `stale` (another issue changed since it was read), `trashed` (restored or purged meanwhile).
 */
export async function writeRestoredIssue(
  orgId: number,
  stored: Record<string, unknown>,
  deletedAt: string,
  restore: IssueRestore,
  others: ReadonlyMap<string, Record<string, unknown> | undefined>,
): Promise<void> {
  const i = issueItem.decode(stored);
  const { projectId } = i;
  const wanted = new Set(restore.kept);
  const kept = Object.fromEntries(Object.entries(storedRelations(stored)).filter(([id]) => wanted.has(id)));
  const stateId = restore.state ? restore.state.state_id : i.stateId;
  const item = restoredItem(stored, restore, kept);
  const items = issueWriteItems({
    orgId,
    projectId,
    issues: [
      {
        item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        reason: 'issue_exists',
      },
      ...otherSides(orgId, i, kept, others),
    ],
    changes: [{ after: issueStateOf(orgId, item) }],
    ctx: { restoring: restore.undoRemoval },
    owner: (sprintId, add) => {
      const update = listOwnerUpdate(orgId, projectId, sprintId, add, sprintId === null ? 'project' : 'sprint');
      return sprintId !== null && restore.undoRemoval ? notActivatedSince(update, deletedAt) : update;
    },
    owners: [restore.sprintId],
    ...(restore.parentGuard ? { parentGuard: restore.parentGuard } : {}),
    checks: [
      ...(restore.sprintId === null ? [] : [existsCheck(keys.project(orgId, projectId), 'project')]),
      // Its state, still there: one deleted meanwhile is decided on the workflow (`stateOnReturn`).
      ...(stateId === null ? [] : [existsCheck(keys.state(orgId, projectId, stateId), 'state')]),
    ],
    tail: trashRemovalOf(orgId, 'issue', i.id, deletedAt, 'restored'),
    returning: { openBlockers: new Map([[i.id, restore.blockedBy]]), prs: pullRequestCountsOf([stored]) },
  });
  await sendIssueWrite(items);
}

/**
 * The other issues' sides of the kept relations: one Update per other issue, on condition that it
 * is at the revision read (refused `stale`: read again), its revision moved on. Its count of open
 * blockers, when the restored issue blocks it, is folded in by lib/db/issues/issue-write.ts.
 */
function otherSides(
  orgId: number,
  restored: StoredIssue,
  kept: Record<string, StoredRelation>,
  others: ReadonlyMap<string, Record<string, unknown> | undefined>,
): GuardedItem[] {
  const byOther = new Map<string, [string, StoredRelation][]>();
  for (const [id, r] of Object.entries(kept)) {
    const key = issueRefId(r.project_id, r.issue_id);
    byOther.set(key, [...(byOther.get(key) ?? []), [id, r]]);
  }
  return [...byOther.entries()].map(([key, relations]) => {
    const other = others.get(key)!;
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

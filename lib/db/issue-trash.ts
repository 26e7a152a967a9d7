import { TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { issueItem, issueStateOf } from './issue-item.ts';
import { issueWriteItems, listOwnerUpdate, sendIssueWrite } from './issue-write.ts';
import { keys, listKeys } from './keys.ts';
import { existsCheck, type GuardedItem } from './transactions.ts';
import { trashedIssueKey, trashRemovalOf } from './trash.ts';
import { VERSION_ATTRIBUTE } from './versions.ts';

/**
 * An issue's way back from the organisation's trash (docs/trash.md). Its delete (lib/db/issues.ts,
 * `deleteIssue`) put it there whole; its restore is one issue write (lib/db/issue-write.ts), as a
 * create is: the issue as it was stored, and what every derivation keeps of it (its list's
 * counters and rank index, its number's pointer, its assignee's entry and count, its parent's
 * summary and children index, its search record), with the trash item's removal.
 */

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
): Promise<void> {
  const i = issueItem.decode(stored);
  const { projectId } = i;
  const moved = back.sprintId !== i.sprintId || back.position !== i.position;
  const version = Number(stored[VERSION_ATTRIBUTE] ?? 1);
  const item: Record<string, unknown> = {
    ...stored,
    // Its own version (a Put made for a request would otherwise start again at 1, lib/db/stamps.ts);
    // one more when it does not come back as it was, so that no ETag of before matches it.
    [VERSION_ATTRIBUTE]: moved ? version + 1 : version,
    ...(moved
      ? {
          sprint_id: back.sprintId,
          position: back.position,
          LSK:
            back.sprintId === null
              ? listKeys.backlogIssue(back.position, i.id)
              : listKeys.sprintIssue(back.sprintId, back.position, i.id),
          rev: i.rev + 1,
        }
      : {}),
    ...issueItem.encode({ restoredAt: new Date().toISOString() }),
  };
  // Its relations' other sides lost them at its delete: it comes back without them (and so blocked by none).
  delete item[issueItem.stored('relations')];
  item[issueItem.stored('openBlockers')] = 0;
  const items = issueWriteItems({
    orgId,
    projectId,
    issues: [
      {
        item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        reason: 'issue_exists',
      },
    ],
    changes: [{ after: issueStateOf(orgId, item) }],
    ctx: { restoring: back.undoRemoval },
    owner: (sprintId, add) => {
      const update = listOwnerUpdate(orgId, projectId, sprintId, add, sprintId === null ? 'project' : 'sprint');
      return sprintId !== null && back.undoRemoval ? notActivatedSince(update, deletedAt) : update;
    },
    owners: [back.sprintId],
    checks: back.sprintId === null ? [] : [existsCheck(keys.project(orgId, projectId), 'project')],
    tail: trashRemovalOf(orgId, 'issue', i.id, deletedAt, 'restored'),
  });
  await sendIssueWrite(items.map((g) => numberKept(orgId, g, i.number, projectId, i.id)));
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
 * The Put of the restored issue's number pointer, on condition that no issue of another project
 * holds the number (a prefix given up by a rename and taken again): refused `number_taken`.
 * Other items as they are.
 */
function numberKept(orgId: number, g: GuardedItem, number: string, projectId: number, issueId: number): GuardedItem {
  const put = (g.item as { Put?: { Item: Record<string, unknown> } }).Put;
  if (!put || put.Item.SK !== keys.issueKey(orgId, number).SK) return g;
  return {
    item: {
      Put: {
        ...put,
        TableName: tableName(),
        ConditionExpression: 'attribute_not_exists(PK) OR (project_id = :kept_project AND issue_id = :kept_issue)',
        ExpressionAttributeValues: { ':kept_project': projectId, ':kept_issue': issueId },
      },
    },
    reason: 'number_taken',
  };
}

/**
 * Whether issue `issueId` is gone for good: neither there nor in the trash (where what lives under
 * it waits for a restore). One TransactGetItems reads both, so a restore (which writes the issue
 * and deletes the trash item at once) is never seen half done.
 */
export async function issueIsPurged(orgId: number, projectId: number, issueId: number): Promise<boolean> {
  const out = await db.send(
    new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: tableName(), Key: keys.issue(orgId, projectId, issueId), ProjectionExpression: 'PK' } },
        { Get: { TableName: tableName(), Key: trashedIssueKey(orgId, issueId), ProjectionExpression: 'PK' } },
      ],
    }),
  );
  return (out.Responses ?? []).every((r) => r.Item === undefined);
}

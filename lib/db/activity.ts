import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Activity } from '../schemas/activity.ts';
import { db, tableName } from './client.ts';
import { collections, keys, listKeys, projectPk, skPrefixes } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import { putNew, addTo, existsCheck, Refused, transact } from './transactions.ts';

/**
 * Activity entries, written by the change feed consumer (lib/feed/consume.ts) under the issue or
 * sprint they describe, in the project's partition: the issue cascade (SK prefix `ISSUE#i#`) and
 * the project cascade remove them with their parent. Each entry is keyed by its stream record's
 * sequence number, so a replayed record finds its entry written and writes nothing.
 */

/** Why an activity write was refused: already written (a replay), or its parent is gone. */
export const activityRefusals = { recorded: 'recorded', parent: 'parent' } as const;

export interface ActivityEntry {
  orgId: number;
  projectId: number;
  /** Under an issue, or (sprint transitions) under a sprint. */
  owner: { issueId: number } | { sprintId: number };
  sequence: string;
  activity: Activity;
}

/**
 * Writes one entry and counts it on its parent (the list's total), in one transaction that also
 * proves the parent still exists: an entry is never left behind by a parent deleted meanwhile.
 * Returns false when there was nothing to write (a replay, or the parent is gone).
 */
export async function recordActivity(entry: ActivityEntry): Promise<boolean> {
  const { orgId, projectId, owner, sequence } = entry;
  const isIssue = 'issueId' in owner;
  const key = isIssue
    ? keys.issueActivity(orgId, projectId, owner.issueId, sequence)
    : keys.sprintActivity(orgId, projectId, owner.sprintId, sequence);
  const lsk = isIssue ? listKeys.issueActivity(owner.issueId, sequence) : listKeys.sprintActivity(owner.sprintId, sequence);
  try {
    await transact([
      putNew(
        { ...key, LSK: lsk, type: 'activity', org_id: orgId, project_id: projectId, ...entry.activity },
        activityRefusals.recorded,
      ),
      addTo(
        isIssue ? keys.issue(orgId, projectId, owner.issueId) : keys.sprint(orgId, projectId, owner.sprintId),
        'activity_count',
        1,
        activityRefusals.parent,
      ),
      // Nor under a deleted project, whose cascade may have read past this key already.
      existsCheck(keys.project(orgId, projectId), activityRefusals.parent),
    ]);
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

/** One page of an issue's or a sprint's activity, oldest first, with the ancestors to check. */
export async function listActivity(
  orgId: number,
  projectId: number,
  owner: { issueId: number; sprintId: number | null } | { sprintId: number },
  page: PageRequest,
) {
  const collection =
    'issueId' in owner
      ? collections.issueActivity(orgId, projectId, owner.issueId)
      : collections.sprintActivity(orgId, projectId, owner.sprintId);
  const ancestors = [
    keys.project(orgId, projectId),
    ...(owner.sprintId === null ? [] : [keys.sprint(orgId, projectId, owner.sprintId)]),
    ...('issueId' in owner ? [keys.issue(orgId, projectId, owner.issueId)] : []),
  ];
  const { page: result, related } = await listPageWith(collection, page, ancestors);
  return { page: result, related };
}

/** Removes a deleted sprint's own activity (its issues' activity goes with their cascade). */
export async function deleteSprintActivity(orgId: number, projectId: number, sprintId: number): Promise<void> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.sprintActivity(sprintId) },
      ProjectionExpression: 'PK, SK',
      ConsistentRead: true,
    }),
  );
  const found = out.Items ?? [];
  // A sprint has at most two entries (activated, completed): one BatchWrite.
  if (found.length > 0) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: { [tableName()]: found.slice(0, 25).map((k) => ({ DeleteRequest: { Key: { PK: k.PK, SK: k.SK } } })) },
      }),
    );
  }
}

import { alsoIf } from '../core/item.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import { issueWriteItems } from '../issues/issue-write.ts';
import type { IssueItem } from '../issues/issues.ts';
import { scanPages } from '../core/query.ts';
import { noPartitionKeys, orphansIn, type CascadeParent, type PartitionKeys } from '../../model/cascades.ts';
import { tableName } from '../core/client.ts';
import { keys, parseProjectPk } from '../core/keys.ts';
import { getItem, itemExists, Refused, revisionCondition, transact } from '../core/transactions.ts';
import { notePartitionItem } from './cascade-records.ts';

/**
 * The table's side of the cascade's deletes (lib/jobs/cascade-deletes.ts runs them): a deleted
 * parent's child released, the partitions nobody emptied, whether a parent is gone.
 */

/** Who deleted an issue, from its delete's marker (lib/db/core/deletions.ts): undefined for a cascade's or an operator's. */
export async function deleterOf(orgId: number, projectId: number, issueId: number): Promise<number | undefined> {
  const marker = await getItem(keys.deletion(keys.issue(orgId, projectId, issueId)), 'updated_by');
  return typeof marker?.updated_by === 'number' ? marker.updated_by : undefined;
}

/**
 * Clears the parent of one child of a deleted issue (`number`: its number, under which its
 * children index lives) in one transaction with what the derivations keep of it (the parent's
 * summary aside: it is gone), its `updated_at` and its revision: the change feed records it in the
 * child's activity. Conditioned on the child's parent being that issue still and on the revision
 * read, so a cascade run twice changes nothing twice. A child gone or given another parent loses
 * only its record left behind (`left`); `stale`: the child changed since it was read.
 */
export async function releaseChild(
  orgId: number,
  projectId: number,
  issueId: number,
  number: string,
  childId: number,
): Promise<'released' | 'left' | 'stale'> {
  const child = await getItem<IssueItem>(keys.issue(orgId, projectId, childId));
  if (!child || child.parent_id !== issueId) {
    await transact([{ item: { Delete: { TableName: tableName(), Key: keys.subIssue(orgId, number, childId) } } }]);
    return 'left';
  }
  const now = new Date().toISOString();
  const before = issueStateOf(orgId, child as never);
  const update = alsoIf(
    issueItem.update({
      set: { parentId: null, parentNumber: null, updatedAt: now },
      add: { rev: 1 },
      if: { equals: { parentId: issueId } },
    }),
    { ConditionExpression: revisionCondition(child.rev), ExpressionAttributeValues: { ':rev': child.rev ?? 0 } },
  );
  try {
    await transact(
      issueWriteItems({
        orgId,
        projectId,
        issues: [
          {
            item: { Update: { TableName: tableName(), Key: keys.issue(orgId, projectId, child.id), ...update } },
            reason: 'stale',
          },
        ],
        changes: [{ before, after: { ...before, parentId: null, parentNumber: null, updatedAt: now } }],
        goneIssues: [issueId],
      }),
    );
    return 'released';
  } catch (err) {
    if (err instanceof Refused) return 'stale';
    throw err;
  }
}

/**
 * The cascades nobody finished: partitions of projects that are gone, issues of sprints that are
 * gone, comments of issues that are gone (a stream record lost for good, e.g. one past the
 * stream's 24-hour retention). Operators only (`cascade:sweep`): this reads the whole table with
 * a Scan of keys, which no request path ever does.
 */
export async function findOrphanedCascades(): Promise<CascadeParent[]> {
  const partitions = new Map<string, PartitionKeys>();
  await scanPages(
    { ProjectionExpression: 'PK, SK, LSK', FilterExpression: 'contains(PK, :p)', ExpressionAttributeValues: { ':p': '#P#' } },
    (items) => {
      for (const item of items) {
        const pk = String(item.PK);
        if (!parseProjectPk(pk)) continue;
        if (!partitions.has(pk)) partitions.set(pk, noPartitionKeys());
        notePartitionItem(partitions.get(pk) as PartitionKeys, { SK: String(item.SK), LSK: item.LSK as string | undefined });
      }
    },
  );
  const orphans: CascadeParent[] = [];
  for (const [pk, part] of partitions) {
    const { orgId, projectId } = parseProjectPk(pk) as { orgId: number; projectId: number };
    if (await itemExists(keys.project(orgId, projectId))) orphans.push(...orphansIn(orgId, projectId, part));
    else orphans.push({ kind: 'project', orgId, projectId });
  }
  return orphans;
}

/** True when the parent a cascade would empty is itself gone (a cascade under a live parent would delete live data). */
export async function parentIsGone(parent: CascadeParent): Promise<boolean> {
  // A field's cascade settles values on what its definition is now: harmless while it lives.
  if (parent.kind === 'field') return true;
  const key =
    parent.kind === 'project'
      ? keys.project(parent.orgId, parent.projectId)
      : parent.kind === 'sprint'
        ? keys.sprint(parent.orgId, parent.projectId, parent.sprintId)
        : parent.kind === 'issue'
          ? keys.issue(parent.orgId, parent.projectId, parent.issueId)
          : parent.kind === 'label'
            ? keys.label(parent.orgId, parent.projectId, parent.labelId)
            : keys.state(parent.orgId, parent.projectId, parent.stateId);
  return !(await itemExists(key));
}

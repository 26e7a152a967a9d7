import { alsoIf } from '../core/item.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import { issueWriteItems } from '../issues/issue-write.ts';
import { asActor } from '../../context/actor.ts';
import { childrenOf } from '../issues/sub-issues.ts';
import type { IssueItem } from '../issues/issues.ts';
import { unlinkRemovedIssues } from '../issues/relations.ts';
import { scanPages } from '../core/query.ts';
import { forEachLimited } from '../../model/limited.ts';
import {
  noPartitionKeys,
  orphansIn,
  PARALLELISM,
  type CascadeOptions,
  type CascadeParent,
  type PartitionKeys,
} from '../../model/cascades.ts';
import { tableName } from '../core/client.ts';
import { collections, keys, parseProjectPk, projectPk, skPrefixes } from '../core/keys.ts';
import { getItem, itemExists, Refused, revisionCondition, transact } from '../core/transactions.ts';
import { notePartitionItem } from './cascade-records.ts';
import { deleteKeys, forEachPage, issueIdOf, removedIssues, sprintIssuesQuery, unindexIssues } from './cascade-steps.ts';

/**
 * The deletes of the cascade (lib/jobs/cascade.ts decides which runs): everything under a project,
 * a sprint or an issue, a deleted parent's children released, and the partitions nobody emptied.
 */

/**
 * Clears the parent of the children of a deleted issue (`number`: its number, under which its
 * children index lives), each in one transaction with what the derivations keep of it (the
 * parent's summary aside: it is gone), its `updated_at` and its revision: the change feed records
 * it in the child's activity. Conditioned on the child's parent being that issue still, so a
 * cascade run twice changes nothing twice. At most 100 children (more, from an issue of the same
 * number deleted with an earlier project, are only those records: each names its parent).
 */
export async function releaseChildren(orgId: number, projectId: number, issueId: number, number: string): Promise<number> {
  const [records, marker] = await Promise.all([
    childrenOf(orgId, { projectId, issueId, number }),
    getItem(keys.deletion(keys.issue(orgId, projectId, issueId)), 'updated_by'),
  ]);
  // Made for whoever deleted the parent (its delete's marker, lib/db/core/deletions.ts): the change
  // feed reports each child's parent_id cleared as theirs, in the child's activity.
  const actor = typeof marker?.updated_by === 'number' ? marker.updated_by : undefined;
  const asDeleter = <T>(fn: () => Promise<T>) => (actor === undefined ? fn() : asActor(actor, fn));
  let released = 0;
  await forEachLimited(records, PARALLELISM, (record) => asDeleter(() => releaseChild(record)));
  return released;

  async function releaseChild(record: { issueId: number }): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const child = await getItem<IssueItem>(keys.issue(orgId, projectId, record.issueId));
      if (!child || child.parent_id !== issueId) {
        // Gone, or given another parent: only a record left behind (if any) goes.
        await transact([{ item: { Delete: { TableName: tableName(), Key: keys.subIssue(orgId, number, record.issueId) } } }]);
        return;
      }
      const now = new Date().toISOString();
      const before = issueStateOf(orgId, child as never);
      try {
        await transact(
          issueWriteItems({
            orgId,
            projectId,
            issues: [
              {
                item: {
                  Update: {
                    TableName: tableName(),
                    Key: keys.issue(orgId, projectId, child.id),
                    ...alsoIf(
                      issueItem.update({
                        set: { parentId: null, parentNumber: null, updatedAt: now },
                        add: { rev: 1 },
                        if: { equals: { parentId: issueId } },
                      }),
                      {
                        ConditionExpression: revisionCondition(child.rev),
                        ExpressionAttributeValues: { ':rev': child.rev ?? 0 },
                      },
                    ),
                  },
                },
                reason: 'stale',
              },
            ],
            changes: [{ before, after: { ...before, parentId: null, parentNumber: null, updatedAt: now } }],
            goneIssues: [issueId],
          }),
        );
        released++;
        return;
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
      }
    }
    throw new Error(`child ${record.issueId} of issue ${issueId} kept changing: its parent is cleared on the next run`);
  }
}

/** Deletes every item of a deleted project's partition. Returns the number of items deleted. */
export async function deleteProjectContents(orgId: number, projectId: number, options: CascadeOptions = {}): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk },
      ProjectionExpression:
        'PK, SK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points, #size, uploader_id, pending_reserved',
      ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
    },
    options,
    async (pageKeys, items) => {
      await unindexIssues(orgId, projectId, items);
      // Relations to issues of other projects: their sides go (this project's go with it).
      await unlinkRemovedIssues(orgId, removedIssues(projectId, items), projectId);
      await deleteKeys(pageKeys, items);
    },
  );
}

/** Deletes the comments of a deleted issue. Returns the number deleted. */
export async function deleteIssueComments(
  orgId: number,
  projectId: number,
  issueId: number,
  options: CascadeOptions = {},
): Promise<number> {
  return forEachPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      // Comments and activity alike (lib/db/core/keys.ts: both are stored under the issue's SK).
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.underIssue(issueId) },
      // Attachments' sizes too: their bytes come off the organisation's count (a pending one's reservation too).
      ProjectionExpression: 'PK, SK, #size, #status, uploader_id, pending_reserved',
      ExpressionAttributeNames: { '#size': 'size', '#status': 'status' },
    },
    options,
    deleteKeys,
  );
}

/**
 * Deletes the issues of a deleted sprint with their comments (comments first, so that no comment
 * outlives its issue if this is interrupted). Returns the number of items deleted.
 */
export async function deleteSprintIssues(
  orgId: number,
  projectId: number,
  sprintId: number,
  options: CascadeOptions = {},
): Promise<number> {
  let comments = 0;
  const issueCount = await forEachPage(sprintIssuesQuery(orgId, projectId, sprintId), options, async (issueKeys, items) => {
    await unindexIssues(orgId, projectId, items, 'outlive');
    await unlinkRemovedIssues(orgId, removedIssues(projectId, items));
    await forEachLimited(issueKeys, PARALLELISM, async (key) => {
      // Awaited first: `comments += await ...` would add to the value read before the wait.
      const deleted = await deleteIssueComments(orgId, projectId, issueIdOf(key), { deadline: options.deadline });
      comments += deleted;
    });
    await deleteKeys(issueKeys);
  });
  return issueCount + comments;
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

import { asActor } from '../context/actor.ts';
import { forEachLimited } from '../model/limited.ts';
import { PARALLELISM, type CascadeOptions } from '../model/cascades.ts';
import { childrenOf } from '../db/issues/sub-issues.ts';
import { unlinkRemovedIssues } from '../db/issues/relations.ts';
import { deleterOf, releaseChild } from '../db/cascades/cascade-deletes.ts';
import {
  deleteKeys,
  forEachPage,
  issueContentsQuery,
  issueIdOf,
  projectContentsQuery,
  removedIssues,
  sprintIssuesQuery,
  unindexIssues,
} from '../db/cascades/cascade-steps.ts';

/**
 * The deletes of the cascade (lib/jobs/cascade.ts decides which runs): everything under a project,
 * a sprint or an issue, and a deleted parent's children released. Each page's reads and writes are
 * lib/db/cascades' named steps.
 */

/** Tries to release one child this many times before the run gives up on it (the next run takes it again). */
const CHILD_ATTEMPTS = 5;

/**
 * Clears the parent of the children of a deleted issue (`number`: its number, under which its
 * children index lives), each in one transaction (`releaseChild`), made for whoever deleted the
 * parent (its delete's marker): the change feed reports each child's `parent_id` cleared as
 * theirs. At most 100 children. Returns how many it released.
 */
export async function releaseChildren(orgId: number, projectId: number, issueId: number, number: string): Promise<number> {
  const [records, actor] = await Promise.all([
    childrenOf(orgId, { projectId, issueId, number }),
    deleterOf(orgId, projectId, issueId),
  ]);
  const asDeleter = <T>(fn: () => Promise<T>) => (actor === undefined ? fn() : asActor(actor, fn));
  let released = 0;
  await forEachLimited(records, PARALLELISM, (record) =>
    asDeleter(async () => {
      for (let attempt = 0; attempt < CHILD_ATTEMPTS; attempt++) {
        const outcome = await releaseChild(orgId, projectId, issueId, number, record.issueId);
        if (outcome === 'stale') continue;
        if (outcome === 'released') released++;
        return;
      }
      throw new Error(`child ${record.issueId} of issue ${issueId} kept changing: its parent is cleared on the next run`);
    }),
  );
  return released;
}

/** Deletes every item of a deleted project's partition. Returns the number of items deleted. */
export async function deleteProjectContents(orgId: number, projectId: number, options: CascadeOptions = {}): Promise<number> {
  return forEachPage(projectContentsQuery(orgId, projectId), options, async (pageKeys, items) => {
    await unindexIssues(orgId, projectId, items);
    // Relations to issues of other projects: their sides go (this project's go with it).
    await unlinkRemovedIssues(orgId, removedIssues(projectId, items), projectId);
    await deleteKeys(pageKeys, items);
  });
}

/** Deletes the comments, activity and attachments of a deleted issue. Returns the number deleted. */
export async function deleteIssueComments(
  orgId: number,
  projectId: number,
  issueId: number,
  options: CascadeOptions = {},
): Promise<number> {
  return forEachPage(issueContentsQuery(orgId, projectId, issueId), options, deleteKeys);
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

import { descriptionDigest, readActivityEntry } from '../db/issues/activity.ts';

import { issueItem } from '../db/issues/issue-item.ts';

import { storedRelations } from '../db/issues/relations.ts';

import { notRevertible, revertOf, type RecordedRelation } from '../model/revert.ts';

import type { Principal } from '../model/principal.ts';
import type { Issue, IssueUpdate } from '../schemas/issues.ts';
import { NotFoundError, RevertConflictError, TransitionError } from '../vocabulary/errors.ts';

import { activityIdParts } from '../vocabulary/ids.ts';

import { toActivity } from './activity.ts';

import { getIssue, updateIssue } from './issues.ts';

import { addRelation, removeRelation } from './relations.ts';
import { rulesOf, toIssue } from '../../lib/resources/issues.ts';

/**
 * Reverting one activity entry (docs/activity.md: Reverting a change): the entry found from its id
 * alone, in the caller's organisation (its id says where it lives: lib/vocabulary/ids.ts), decided
 * by lib/model/revert.ts, written by the use case a client's own write goes through (a PATCH of the
 * issue, a relation's removal or creation) with the entry's id marked on the issue, so that the
 * change feed records the write as the revert it is (`reverts`) and every derived state follows.
 *
 * Cost (calls, the authorizer aside): the entry with its project and issue (one BatchGetItem), then
 * what the write costs: a change of fields that of a PATCH (the issue with its ancestors, its place
 * beside the transaction; a move also the position's allocation); a relation's that of its route,
 * then the issue and its place for the answer.
 */

/** An entry's id that names nothing in the caller's organisation (or no entry at all). */
const notFound = () => new NotFoundError('Activity entry');

/** The relations an issue item holds, as an entry records them (lib/feed/events.ts). */
function recordedRelations(item: Record<string, unknown>): Record<string, RecordedRelation> {
  return Object.fromEntries(
    Object.entries(storedRelations(item)).map(([id, r]) => [
      id,
      { id, type: r.type, issue: { id: Number(r.issue_id), issue_number: r.issue_number, project_id: Number(r.project_id) } },
    ]),
  );
}

/**
 * Reverts entry `id` of an issue's activity when every field it changed still holds the value it
 * wrote, and answers the issue as the revert left it (as a PATCH answers it, with its version).
 * 404 for an id that names no entry of the organisation; 422 (`{error}`) for an entry that is not
 * revertible; 409 (`RevertConflictError`) naming the fields changed since, with their values now;
 * what the write itself refuses as its route would (a workflow's rule: 422; `If-Match`: 412).
 */
export async function revertActivity(caller: Principal, id: string): Promise<Issue> {
  const where = activityIdParts(id);
  if (!where) throw notFound();
  const read = await readActivityEntry(caller.orgId, where.projectId, where.owner, where.sequence);
  if (!read.entry || !read.project || !read.owner) throw notFound();
  const entry = toActivity(read.entry);
  // Stream records' sequences are digits; an import's entries (restored from a file) are not.
  const why = notRevertible(entry, { recordedHere: /^\d/.test(where.sequence), description: read.description !== undefined });
  if (why) throw new TransitionError(why);
  if (!('issueId' in where.owner)) throw new TransitionError(`A sprint's entry (${entry.event}) is not reverted`);
  const issueId = where.owner.issueId;
  const item = issueItem.decode(read.owner);
  const at = { projectId: where.projectId, sprintId: item.sprintId };
  const rules = rulesOf(read.project);
  const issue = toIssue(read.owner, item.position, rules);
  const kept = read.description;
  const description = kept && {
    before: kept.before,
    wrote: (now: string | null) => descriptionDigest(now) === kept.afterDigest,
  };
  const first = revertOf(entry, issue, recordedRelations(read.owner), description, rules.fields);
  if ('changed' in first) throw new RevertConflictError(first.changed);
  const { write } = first;
  switch (write.kind) {
    case 'update': {
      // Decided again on the issue as the write reads it: the write is conditioned on that read.
      const decide = (current: Issue): IssueUpdate => {
        const again = revertOf(entry, current, {}, description, rules.fields);
        if ('changed' in again) throw new RevertConflictError(again.changed);
        return again.write.kind === 'update' ? again.write.changes : write.changes;
      };
      return updateIssue(caller, at, issueId, write.changes, { revert: { entry: id, decide } });
    }
    case 'unrelate':
      await removeRelation(caller, item.number, write.relationId, { reverts: id });
      return getIssue(caller, at, issueId);
    case 'relate':
      await addRelation(caller, item.number, { type: write.type, issue_key: write.issueKey }, { reverts: id });
      return getIssue(caller, at, issueId);
  }
}

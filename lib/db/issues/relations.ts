import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RelationType } from '../../schemas/relations.ts';
import { relationInverse } from '../../vocabulary/relation-types.ts';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { keys } from '../core/keys.ts';
import { relationRemovals } from './issue-write.ts';
import { issueItem, searchRecordItem } from './issue-item.ts';
import { pointedIssue } from './issue-lookup.ts';
import { addCounters } from '../projects/sprints.ts';
import { batchGet, existsCheck, Refused, revisionCondition, transact, type GuardedItem } from '../core/transactions.ts';
import { forEachLimited } from '../../model/limited.ts';
import type { RefusalReason } from '../core/refusals.ts';

/**
 * Relations between issues live on the issues themselves: each issue item holds a map
 * `relations` (relation id → its side of the relation: the type seen from it, the other issue's
 * project, id and number, when it was made), at most 50. Both sides are written in one transaction;
 * so is the count of open blockers a `blocks` relation moves (`open_blockers` on the blocked issue,
 * lib/model/derivations.ts). Reading an issue reads its relations and its `blocked`: no call more.
 *
 * Refusal reasons: `stale` (an issue changed since it was read: read again), `project` (a
 * project went), `other` (the other side of a relation being removed is gone already).
 */

/** One side of a relation as an issue item stores it. */
export interface StoredRelation {
  type: RelationType;
  project_id: number;
  issue_id: number;
  issue_number: string;
  created_at: string;
}

/** The other issue's side of `side`, a relation of issue `of`: the inverse type, naming `of`. */
export function otherSideOf(side: StoredRelation, of: { projectId: number; id: number; number: string }): StoredRelation {
  return {
    type: relationInverse[side.type],
    project_id: of.projectId,
    issue_id: of.id,
    issue_number: of.number,
    created_at: side.created_at,
  };
}

/** The project and issue each issue number points to (one consistent BatchGet of their pointers). */
export async function issuesOfNumbers(
  orgId: number,
  numbers: string[],
): Promise<({ projectId: number; issueId: number } | undefined)[]> {
  const found = await batchGet(numbers.map((n) => keys.issueKey(orgId, n)));
  return found.map((p) => p && pointedIssue(p));
}

/** Issues with their projects, in one consistent BatchGet: `[project, issue]` per issue asked for. */
export async function issuesWithProjects(orgId: number, issues: { projectId: number; issueId: number }[]) {
  const found = await batchGet(
    issues.flatMap((i) => [keys.project(orgId, i.projectId), keys.issue(orgId, i.projectId, i.issueId)]),
  );
  return issues.map((_, n) => ({ project: found[2 * n], issue: found[2 * n + 1] }));
}

/** What a relation write does to one of its two issues. */
export interface RelationSide {
  projectId: number;
  issueId: number;
  /** Put this side (under `id`), or take it away. */
  put?: StoredRelation | undefined;
  /** The item had a `relations` map when read (a new one is set whole). */
  hasRelations?: boolean;
  /**
   * Read at this `rev`: the write is refused as `stale` if it moved. Without one (a side not read),
   * the side must still hold the relation (refused as `other`), and `status` says what it was
   * decided on.
   */
  rev?: number | undefined;
  /** A side not read: the status class its count was decided on (refused as `stale` otherwise). */
  closed?: boolean | undefined;
  /** Added to its count of open blockers (`open_blockers`). */
  openBlockers?: number | undefined;
  /** The issue the request is about: the versions `If-Match` names are checked on it. */
  resource?: boolean | undefined;
  /** The activity entry this write reverts: marked on this side (read at `rev`) with the revision it makes. */
  reverts?: string | undefined;
}

const CLOSED = [':closed_done', ':closed_cancelled'];

function sideUpdate(orgId: number, id: string, side: RelationSide): GuardedItem {
  // Every name and value is used (DynamoDB refuses unused ones).
  const names: Record<string, string> = { '#relations': 'relations' };
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  let removes = '';
  if (side.put && !side.hasRelations) {
    sets.push('#relations = :rels');
    values[':rels'] = { [id]: side.put };
  } else if (side.put) {
    names['#rel'] = id;
    sets.push('#relations.#rel = :rel');
    values[':rel'] = side.put;
  } else {
    names['#rel'] = id;
    removes = '#relations.#rel';
  }
  if (side.reverts !== undefined && side.rev !== undefined) {
    names['#reverts'] = issueItem.stored('reverted');
    sets.push('#reverts = :reverts');
    values[':reverts'] = issueItem.encode({ reverted: { entry: side.reverts, rev: side.rev + 1 } })[issueItem.stored('reverted')];
  }
  const added = addCounters({ rev: 1, ...(side.openBlockers ? { open_blockers: side.openBlockers } : {}) }, names, values);
  const conditions = ['attribute_exists(PK)'];
  let reason: RefusalReason = 'stale';
  if (side.rev !== undefined || side.put) {
    conditions.push(revisionCondition(side.rev));
    values[':rev'] = side.rev ?? 0;
  } else {
    conditions.push('attribute_exists(#relations.#rel)');
    reason = 'other';
  }
  if (side.closed !== undefined) {
    names['#status'] = 'status';
    values[':closed_done'] = 'done';
    values[':closed_cancelled'] = 'cancelled';
    const closed = `#status IN (${CLOSED.join(', ')})`;
    conditions.push(side.closed ? closed : `NOT (${closed})`);
  }
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.issue(orgId, side.projectId, side.issueId),
        UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes ? `REMOVE ${removes}` : '', `ADD ${added}`]
          .filter(Boolean)
          .join(' '),
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    reason,
    ...(side.resource ? { resource: true } : {}),
  };
}

/**
 * Writes (or removes) relation `id` on its issues in one transaction: each side (one when the
 * other is gone) with its count of open blockers, and the projects of the sides put (nothing may be
 * written under a deleted project).
 */
export async function writeRelation(orgId: number, id: string, sides: RelationSide[]): Promise<void> {
  const projects = [...new Set(sides.filter((s) => s.put).map((s) => s.projectId))];
  await transact([
    ...sides.map((side) => sideUpdate(orgId, id, side)),
    ...sides.flatMap((side) =>
      side.openBlockers ? [searchBlockersUpdate(orgId, side.projectId, side.issueId, side.openBlockers)] : [],
    ),
    ...projects.map((p) => existsCheck(keys.project(orgId, p), 'project')),
  ]);
}

/**
 * The same change of an issue's count of open blockers on its search record (`is:blocked`,
 * docs/search.md), in the transaction that moves the issue's. Unconditional: the issue's own
 * update proves the issue is there; a record not written yet (an issue from before the search
 * index) is partial until `issues:reindex` fills it, and searches skip it.
 */
export function searchBlockersUpdate(orgId: number, projectId: number, issueId: number, by: number): GuardedItem {
  return searchRecordItem.updateAt(keys.searchIssue(orgId, projectId, issueId), { add: { openBlockers: by } });
}

/** What a cascade needs of an issue it removes: its relations and whether it was open. */
export interface RemovedIssue {
  projectId: number;
  issueId: number;
  closed: boolean;
  relations: Record<string, StoredRelation>;
}

/**
 * Takes the relations of issues a cascade removes (a sprint's, a project's) off the other issues:
 * per relation one UpdateItem that removes the other side and, where the removed issue was an
 * open blocker of it, its count, on condition that the other side is still there, so a page read
 * again changes nothing twice. A side in `skipProject` (the project being emptied) is left alone,
 * and so is one on an issue of `keepSprint` (a sprint moving into the trash whole, whose issues
 * keep what they hold of each other).
 */
export async function unlinkRemovedIssues(
  orgId: number,
  removed: RemovedIssue[],
  skipProject?: number,
  keepSprint?: number,
): Promise<void> {
  const work = removed.flatMap((issue) =>
    Object.entries(issue.relations)
      .filter(([, r]) => Number(r.project_id) !== skipProject)
      .map(([id, r]) => ({ id, r, openBlocker: r.type === 'blocks' && !issue.closed })),
  );
  await forEachLimited(work, 8, async ({ id, r, openBlocker }) => {
    const names: Record<string, string> = {};
    const removes = relationRemovals([id], names);
    const values: Record<string, unknown> = openBlocker ? { ':minus': -1 } : {};
    let condition = 'attribute_exists(#relations.#rel0)';
    if (keepSprint !== undefined) {
      names['#keep_sprint'] = 'sprint_id';
      values[':keep_sprint'] = keepSprint;
      condition += ' AND NOT (#keep_sprint = :keep_sprint)';
    }
    const update = {
      TableName: tableName(),
      Key: keys.issue(orgId, Number(r.project_id), Number(r.issue_id)),
      UpdateExpression: `REMOVE ${removes}${openBlocker ? ' ADD open_blockers :minus' : ''}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
    };
    try {
      if (openBlocker) {
        // With its search record's count, in one transaction.
        await transact([
          { item: { Update: update }, reason: 'gone' },
          searchBlockersUpdate(orgId, Number(r.project_id), Number(r.issue_id), -1),
        ]);
      } else await db.send(new UpdateCommand(update));
    } catch (err) {
      if (!isConditionFailed(err) && !(err instanceof Refused)) throw err;
    }
  });
}

/** The relations an issue item holds, by id. */
export const storedRelations = (item: Record<string, unknown> | undefined): Record<string, StoredRelation> =>
  (item?.relations as Record<string, StoredRelation> | undefined) ?? {};

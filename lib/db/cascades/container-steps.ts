import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { isClosed, statesCounted, type IssueState } from '../../model/derivations.ts';
import type { ContainerState } from '../../vocabulary/trash.ts';
import { MAX_RELATIONS } from '../../vocabulary/relation-types.ts';
import { pendingCascadeRecord } from './cascade-records.ts';
import { type Container } from '../../model/cascades.ts';
import { db, tableName } from '../core/client.ts';
import { alsoIf } from '../core/item.ts';
import { issueItem, issueStateOf } from '../issues/issue-item.ts';
import { issueWriteItems, pullRequestCountsOf, sendIssueWrite } from '../issues/issue-write.ts';
import { collections, keys, type Key } from '../core/keys.ts';
import { organisationCounter } from '../organisation/organisation.ts';
import { prefixGuardItem } from '../projects/projects.ts';
import { queryPages, type QueryInput } from '../core/query.ts';
import {
  otherSideOf,
  searchBlockersUpdate,
  storedRelations,
  unlinkRemovedIssues,
  type StoredRelation,
} from '../issues/relations.ts';
import { reportVelocityPut, type SprintItem } from '../projects/sprints.ts';
import { workflowOf } from '../projects/workflow.ts';
import {
  addTo,
  batchGet,
  getItem,
  putNew,
  Refused,
  transact,
  TRANSACTION_ITEMS,
  updateIf,
  type GuardedItem,
} from '../core/transactions.ts';
import { readWithTrash, trashedKey, trashItem, trashRemovalOf, type TrashFields } from '../core/trash.ts';

/**
 * The table's side of a sprint or a project in the organisation's trash (lib/jobs/container-trash.ts
 * tells the whole story and runs it): where it stands, the Queries of its issues, a page's issues
 * put back, their relations relinked, beginning and finishing its restore.
 */

const itemKeyOf = (c: Container): Key =>
  c.kind === 'sprint' ? keys.sprint(c.orgId, c.projectId, c.sprintId) : keys.project(c.orgId, c.projectId);

const trashKeyOf = (c: Container): Key => trashedKey(c.orgId, c.kind, c.kind === 'sprint' ? c.sprintId : c.projectId);

/** Where a sprint or project stands: there, in the trash (as its trash item says), or gone for good. */
export async function standing(c: Container): Promise<{ there: boolean; trashed: TrashFields | undefined }> {
  const { there, trashed } = await readWithTrash(itemKeyOf(c), trashKeyOf(c), 'whole');
  return { there, trashed: trashed ? trashItem.decode(trashed) : undefined };
}

/** Moves the trash item of `c` from state `from` to `to` (a second run finds it moved already, and leaves it). */
export async function settle(c: Container, from: ContainerState, to: ContainerState, restoreError?: string): Promise<void> {
  await updateIf({
    Key: trashKeyOf(c),
    ...trashItem.update({ set: { state: to, ...(restoreError ? { restoreError } : {}) }, if: { equals: { state: from } } }),
  });
}

// ---------------------------------------------------------------------------------------------
// Taking out and putting back (lib/jobs/container-trash.ts pages them)

/** The Query of a project's issues (keys-only reads would miss what their cleanup reads of each). */
export function projectIssuesQuery(orgId: number, projectId: number): QueryInput {
  return {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :issues)',
    ExpressionAttributeValues: { ':pk': collections.projectContents(orgId, projectId).pk, ':issues': 'ISSUE#' },
    ProjectionExpression: 'PK, SK, id, assignee_id, issue_number, parent_id, parent_number, relations, #status, story_points',
    ExpressionAttributeNames: { '#status': 'status' },
  };
}

/** The Query of a list's issues, whole (a sprint's, or the backlog's: `sprintId` null), in list order. */
export function listIssuesQuery(orgId: number, projectId: number, sprintId: number | null): QueryInput {
  const list =
    sprintId === null ? collections.backlogIssues(orgId, projectId) : collections.sprintIssues(orgId, projectId, sprintId);
  return {
    IndexName: 'LSI1',
    KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
    ExpressionAttributeValues: { ':pk': list.pk, ':prefix': list.prefix },
  };
}

/** The ids of a project's sprints that are there. */
export async function sprintIdsOf(orgId: number, projectId: number): Promise<number[]> {
  return (await sprintItemsOf(orgId, projectId, 'id')).map((item) => Number(item.id));
}

/** `attribute` (by default: all) of each sprint item of a project (one Query of its partition's sprint items). */
async function sprintItemsOf(orgId: number, projectId: number, attribute?: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const sprints = collections.sprints(orgId, projectId);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      // The sprints, not their activity (which sorts among them).
      FilterExpression: '#type = :sprint',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':pk': sprints.pk, ':prefix': sprints.prefix, ':sprint': 'sprint' },
      ...(attribute === undefined ? {} : { ProjectionExpression: attribute }),
    },
    {},
    (items) => {
      found.push(...items);
    },
  );
  return found;
}

/** The trash item's progress: `n` more issues put back (while it is restoring). */
export async function countReturned(c: Container, n: number): Promise<void> {
  if (n === 0) return;
  await updateIf({ Key: trashKeyOf(c), ...trashItem.update({ add: { returned: n }, if: { equals: { state: 'restoring' } } }) });
}

/** What putting back a page of issues needs: each issue's state, its open blockers now, its pull request counts. */
export interface Returns {
  states: IssueState[];
  blockers: Map<number, number>;
  prs: ReturnType<typeof pullRequestCountsOf>;
}

/** What a page of issues (whole items) needs to be put back (one BatchGetItem of their blockers). */
export async function returnsOf(orgId: number, items: Record<string, unknown>[]): Promise<Returns> {
  const blockers = await openBlockersNow(orgId, items);
  return { states: items.map((item) => issueStateOf(orgId, item as never)), blockers, prs: pullRequestCountsOf(items) };
}

/**
 * Puts back the records of `of` (issues of `returns`) kept outside `c`, those of `only`, with
 * their counts, in one transaction: each issue's count of open blockers as its blockers stand now
 * (one outside it may have been closed or reopened while it was away), the search record's beside it.
 */
export async function putBackWrite(c: Container, returns: Returns, of: IssueState[], only: readonly string[]): Promise<void> {
  const { orgId, projectId } = c;
  const { blockers, prs } = returns;
  await sendIssueWrite(
    issueWriteItems({
      orgId,
      projectId,
      issues: of.map((s) =>
        issueItem.updateAt(keys.issue(orgId, projectId, s.id), { set: { openBlockers: blockers.get(s.id) ?? 0 } }),
      ),
      changes: of.map((after) => ({ after })),
      only,
      returning: { openBlockers: blockers, prs, once: true },
    }),
  );
}

/**
 * The open blockers of each issue of a page: its `blocked_by` relations whose other issue is there
 * and open, as read now (one BatchGetItem of the page's other issues; one of the page itself is
 * read as it is in the page).
 */
async function openBlockersNow(orgId: number, items: Record<string, unknown>[]): Promise<Map<number, number>> {
  const blocking = items.map((item) => ({
    id: Number(item.id),
    by: Object.values(storedRelations(item)).filter((r) => r.type === 'blocked_by'),
  }));
  const wanted = new Map(blocking.flatMap(({ by }) => by.map((r) => [`${r.project_id}:${r.issue_id}`, r] as const)));
  const found = await batchGet([...wanted.values()].map((r) => keys.issue(orgId, r.project_id, r.issue_id)));
  const open = new Set(
    [...wanted.keys()].filter((_, n) => found[n] !== undefined && !isClosed(issueItem.field(found[n]!, 'status'))),
  );
  return new Map(blocking.map(({ id, by }) => [id, by.filter((r) => open.has(`${r.project_id}:${r.issue_id}`)).length]));
}

/**
 * Puts back the other sides of an issue's relations to issues outside `c` (those inside kept
 * them): on each other issue, while it is there, outside `c`, without that side yet, and holding
 * fewer than MAX_RELATIONS; with its count of open blockers (and its search record's) when the
 * issue blocks it and is open. A side refused for want of room takes the relation off the issue
 * too (with its own count, when the other issue blocked it and is open).
 */
export async function relinkIssue(c: Container, sprintId: number | null, item: Record<string, unknown>): Promise<void> {
  const { orgId, projectId } = c;
  const issue = issueItem.decode(item);
  const relations = Object.entries(storedRelations(item)).filter(([, r]) => c.kind === 'sprint' || r.project_id !== projectId);
  for (const [id, r] of relations) {
    const openBlocker = r.type === 'blocks' && !isClosed(issue.status);
    const side = otherSideOf(r, issue);
    const names: Record<string, string> = { '#relations': 'relations', '#rel': id };
    const values: Record<string, unknown> = { ':side': side, ':max': MAX_RELATIONS };
    let condition =
      'attribute_exists(PK) AND attribute_not_exists(#relations.#rel) AND (attribute_not_exists(#relations) OR size(#relations) < :max)';
    if (sprintId !== null) {
      names['#sprint'] = 'sprint_id';
      values[':sprint'] = sprintId;
      condition += ' AND NOT (#sprint = :sprint)';
    }
    if (openBlocker) values[':one'] = 1;
    const update: GuardedItem = {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, r.project_id, r.issue_id),
          UpdateExpression: `SET #relations.#rel = :side${openBlocker ? ' ADD open_blockers :one' : ''}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      reason: 'gone',
    };
    try {
      await transact(openBlocker ? [update, searchBlockersUpdate(orgId, r.project_id, r.issue_id, 1)] : [update]);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      await dropIfNoRoom(c, item, id, r);
    }
  }
}

/**
 * After a refused side: when the other issue is there, outside the container, without the side
 * and full, the relation comes off this issue (it cannot be put back as it was); else (the side
 * there already, from a page read again; the other issue gone, whose delete took it off) nothing.
 */
async function dropIfNoRoom(c: Container, item: Record<string, unknown>, id: string, r: StoredRelation): Promise<void> {
  const { orgId } = c;
  const other = await getItem(keys.issue(orgId, r.project_id, r.issue_id));
  if (!other) return;
  const held = storedRelations(other);
  if (held[id] !== undefined || Object.keys(held).length < MAX_RELATIONS) return;
  // The same take-off as a removed issue's on the others: the other issue's side of it, here on this one.
  const side = otherSideOf(r, issueItem.decode(item));
  await unlinkRemovedIssues(orgId, [
    {
      projectId: r.project_id,
      issueId: r.issue_id,
      closed: isClosed(issueItem.field(other, 'status')),
      relations: { [id]: side },
    },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Beginning and finishing a restore

/**
 * Begins the restore of trashed `c` (its trash item as read, `held`): one transaction turns the
 * trash item `restoring` (with `total`, the issues it holds, for its progress, and who restores it)
 * and writes its pending cascade, whose stream record brings the consumer to put its issues back.
 * Refusals: `trashed` (restored, purged, or not `held`: still being taken out, or already
 * restoring), `busy` (a cascade of it still pending: its issues still being taken out).
 */
export async function beginRestore(c: Container, deletedAt: string, restoredBy: number, total: number): Promise<void> {
  const pending = pendingCascadeRecord({ parent: c, attempts: 0, status: 'pending' });
  await transact([
    trashItem.updateAt(
      trashKeyOf(c),
      {
        set: { state: 'restoring', returned: 0, total, restoredBy },
        remove: ['restoreError'],
        if: { exists: true, equals: { deletedAt, state: 'held' } },
      },
      'trashed',
    ),
    { item: { Put: { TableName: tableName(), Item: pending, ConditionExpression: 'attribute_not_exists(PK)' } }, reason: 'busy' },
  ]);
}

/**
 * The restore's last write, once every issue is back: the sprint or project as it was stored, with
 * what its delete took off (a sprint: the project's `sprints_count`, its velocity summary; a
 * project: its prefix guard, the organisation's `projects_count`) and the trash item's removal (the
 * change feed's `<kind>.restored`). Refusals: `trashed` (back already, or purged), `project` (its
 * project gone), `prefix_taken` (another project took its prefix).
 */
export async function putContainerBack(c: Container, trashed: TrashFields): Promise<void> {
  const { orgId, projectId } = c;
  const stored = trashed.stored;
  const items: GuardedItem[] = [
    {
      item: { Put: { TableName: tableName(), Item: stored, ConditionExpression: 'attribute_not_exists(PK)' } },
      reason: 'trashed',
    },
  ];
  if (c.kind === 'sprint') {
    items.push(addTo(keys.project(orgId, projectId), 'sprints_count', 1, 'project'));
    const report = (stored as unknown as SprintItem).report;
    if (report) items.push(reportVelocityPut(orgId, projectId, c.sprintId, report));
  } else {
    const prefix = String(stored.prefix);
    items.push(putNew({ ...keys.prefix(orgId, prefix), ...prefixGuardItem.encode({ projectId }) }, 'prefix_taken'));
    items.push(addTo(keys.org(orgId), organisationCounter.projects, 1, 'organisation'));
  }
  items.push(...trashRemovalOf(orgId, c.kind, trashed.itemId, trashed.deletedAt, 'restored'));
  const moves = await movesOnReturn(c, stored);
  const room = TRANSACTION_ITEMS - items.length;
  items.push(...moves.slice(0, room));
  await transact(items);
  // More deleted states than a transaction holds besides (never in practice): written at once after it.
  for (const more of moves.slice(room)) await db.send(new PutCommand(more.item.Put!));
}

/**
 * The pending cascades that move the issues of restored `c` (as stored, `stored`) off the workflow
 * states deleted while it was in the trash, as each state's delete moved the issues that were there
 * then (lib/jobs/state-cascade.ts: the state its issues went to, its category, times and counters):
 * a state's delete does not reach the issues of a sprint or project in the trash. Which states its
 * issues are in, its lists' column counters say (the sprint's; a project's backlog's and its
 * sprints'); which are deleted, its project's workflow (a sprint's, read now). Written with its last
 * transaction, so that they run once its issues are back.
 */
async function movesOnReturn(c: Container, stored: Record<string, unknown>): Promise<GuardedItem[]> {
  const { orgId, projectId } = c;
  const project = c.kind === 'project' ? stored : await getItem(keys.project(orgId, projectId));
  const owners = c.kind === 'sprint' ? [stored] : [stored, ...(await sprintItemsOf(orgId, projectId))];
  const live = new Set(workflowOf(project).states.map((s) => s.id));
  return [...statesCounted(owners)]
    .filter((stateId) => !live.has(stateId))
    .map((stateId) => ({
      item: {
        Put: {
          TableName: tableName(),
          Item: pendingCascadeRecord({ parent: { kind: 'state', orgId, projectId, stateId }, attempts: 0, status: 'pending' }),
        },
      },
    }));
}

/**
 * Makes the trash item of a sprint or project just deleted hold it exactly as it was deleted: its
 * delete's stream record's old image (`image`, at `recordMs`), which no write after the delete's
 * read can have missed (its counters move with every write of its issues). Only while it is
 * still `withdrawing` from a delete made by then, so a record replayed after a restore and another
 * delete leaves the later one alone.
 */
export async function keepDeletedImage(c: Container, image: Record<string, unknown>, recordMs: number): Promise<void> {
  await updateIf({
    Key: trashKeyOf(c),
    ...alsoIf(trashItem.update({ set: { stored: image }, if: { equals: { state: 'withdrawing' } } }), {
      ConditionExpression: '#deleted <= :latest',
      ExpressionAttributeNames: { '#deleted': trashItem.stored('deletedAt') },
      // The record's time is in whole seconds (and approximate): a delete is at most that much earlier.
      ExpressionAttributeValues: { ':latest': new Date(recordMs + 2000).toISOString() },
    }),
  });
}

/**
 * Why trashed `c` (as stored, `stored`) cannot come back now, or undefined: a sprint whose project
 * is in the trash (restore that first) or gone; a project whose prefix another project took.
 * One BatchGetItem.
 */
export async function restoreObstacle(c: Container, stored: Record<string, unknown>): Promise<string | undefined> {
  if (c.kind === 'sprint') {
    const [project, trashedProject] = await batchGet([
      keys.project(c.orgId, c.projectId),
      trashedKey(c.orgId, 'project', c.projectId),
    ]);
    if (project) return undefined;
    return trashedProject
      ? `Its project ${String(trashItem.field(trashedProject, 'title'))} is in the trash: restore the project first`
      : 'Its project was deleted for good';
  }
  const prefix = String(stored.prefix);
  const [guard] = await batchGet([keys.prefix(c.orgId, prefix)]);
  return guard
    ? `Another project took the prefix ${prefix} since it was deleted: give that project another prefix, or delete it, then restore`
    : undefined;
}

/**
 * The issues a trashed project's restore puts back: its backlog's (as stored) and those of its
 * sprints that are there (one Query of its sprint items), not those of sprints in the trash.
 */
export async function projectIssueCount(orgId: number, projectId: number, stored: Record<string, unknown>): Promise<number> {
  const sprints = await sprintItemsOf(orgId, projectId, 'issues_count');
  return sprints.reduce((total, item) => total + Number(item.issues_count ?? 0), Number(stored.backlog_count ?? 0));
}

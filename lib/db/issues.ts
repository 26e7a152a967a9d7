import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appendedPosition, windowOf, windowRead, type ListWindow, type Renumbering, type Slot } from '../domain/positions.ts';
import type { Issue, IssueStatus } from '../schemas/issues.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { collections, keys, listKeys, parseIssueListKey, type Collection } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import type { ProjectItem } from './projects.ts';
import { accountExists, addCounters, type SprintCounters, type SprintItem } from './sprints.ts';
import { batchGet, Refused, revisionCondition, setAssignments, transact, type GuardedItem } from './transactions.ts';
import { withVersion } from './versions.ts';

/**
 * Issues live in their project's partition (`ISSUE#i`); their LSK places them in one list: a
 * sprint's (`S#<sprint>#<position>#<id>`) or the backlog's (`B#<position>#<id>`). A list is
 * identified here by its sprint id, `null` standing for the project backlog.
 *
 * Refusal reasons: `stale` (something read before the write moved meanwhile: re-read and decide
 * again), `project`, `sprint` (a parent is gone), `assignee` (not an account of the organisation).
 */

/** The stored issue: the resource plus what only the data layer reads. */
export interface IssueItem extends Issue {
  /** Bumped by every write that can change counters or the list; writes are conditioned on it. */
  rev?: number;
  comments_count?: number;
}

/**
 * Counter changes on a list's owner: a sprint's counters (with its scope counters and the day's
 * burndown attribute, lib/db/sprints.ts), or the backlog count on the project.
 */
export type ListDelta = Partial<SprintCounters> & Partial<Record<string, number>>;

export interface ParentChange {
  /** The list whose owner changes: a sprint id, or null for the backlog (owned by the project). */
  sprintId: number | null;
  delta: ListDelta;
  /** A position was computed in this list: check and bump its revision (read as `expected`). */
  listRev?: { expected: number | undefined } | undefined;
}

export const toIssue = (record: object): Issue => {
  const item = record as Record<string, unknown>;
  const nullable = <T>(v: unknown) => (v as T | null | undefined) ?? null;
  return withVersion(
    {
      id: Number(item.id),
      project_id: Number(item.project_id),
      sprint_id: item.sprint_id === null || item.sprint_id === undefined ? null : Number(item.sprint_id),
      issue_number: String(item.issue_number),
      title: String(item.title),
      description: nullable<string>(item.description),
      status: item.status as IssueStatus,
      story_points: nullable<number>(item.story_points),
      position: Number(item.position),
      assignee_id: nullable<number>(item.assignee_id),
      started_at: nullable<string>(item.started_at),
      completed_at: nullable<string>(item.completed_at),
      created_at: String(item.created_at),
      updated_at: String(item.updated_at),
    },
    record,
  );
};

const listCollection = (orgId: number, projectId: number, sprintId: number | null): Collection =>
  sprintId === null ? collections.backlogIssues(orgId, projectId) : collections.sprintIssues(orgId, projectId, sprintId);

const listKey = (sprintId: number | null, position: number, issueId: number) =>
  sprintId === null ? listKeys.backlogIssue(position, issueId) : listKeys.sprintIssue(sprintId, position, issueId);

/**
 * The project, the given sprints and (optionally) the issue in one consistent BatchGet: every
 * issue read and write checks its ancestors this way, so the children of a deleted parent are
 * unreachable at once.
 */
export async function getIssueFamily(orgId: number, projectId: number, sprintIds: number[], issueId?: number) {
  const wanted = [...new Set(sprintIds)];
  const found = await batchGet([
    keys.project(orgId, projectId),
    ...wanted.map((s) => keys.sprint(orgId, projectId, s)),
    ...(issueId === undefined ? [] : [keys.issue(orgId, projectId, issueId)]),
  ]);
  const sprints = new Map<number, SprintItem | undefined>();
  wanted.forEach((s, i) => sprints.set(s, found[i + 1] as SprintItem | undefined));
  return {
    project: found[0] as ProjectItem | undefined,
    sprints,
    issue: (issueId === undefined ? undefined : found.at(-1)) as IssueItem | undefined,
  };
}

/** One page of a list, in position order (then id). */
export async function listIssues(orgId: number, projectId: number, sprintId: number | null, page: PageRequest) {
  const ancestors = [keys.project(orgId, projectId), ...(sprintId === null ? [] : [keys.sprint(orgId, projectId, sprintId)])];
  const { page: result, related } = await listPageWith(listCollection(orgId, projectId, sprintId), page, ancestors);
  return { page: result, project: related[0] as ProjectItem | undefined, sprint: related[1] as SprintItem | undefined };
}

/**
 * The next issue number and an appended position, in one atomic UpdateItem on the project: it
 * proves the project exists and returns its prefix. Numbers are never handed out twice.
 */
export async function allocateIssueSlot(orgId: number, projectId: number) {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.project(orgId, projectId),
        UpdateExpression: 'ADD issue_seq :one, position_seq :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const project = out.Attributes as ProjectItem;
    return { number: Number(project.issue_seq), prefix: project.prefix, positionSeq: Number(project.position_seq) };
  } catch (err) {
    if (isConditionFailed(err)) throw new Refused('project');
    throw err;
  }
}

/** Reserves `count` consecutive values of the project's position allocator; returns the first. */
export async function allocatePositions(orgId: number, projectId: number, count: number): Promise<number> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.project(orgId, projectId),
        UpdateExpression: 'ADD position_seq :count',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':count': count },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.position_seq) - count + 1;
  } catch (err) {
    if (isConditionFailed(err)) throw new Refused('project');
    throw err;
  }
}

/**
 * The counter update of a list's owner (or a check that it exists, when nothing changes). A sprint
 * being completed is refused: its issues are frozen until the completion ends (lib/domain/sprints.ts).
 */
export function listOwnerUpdate(orgId: number, projectId: number, change: ParentChange, reason: string): GuardedItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = ['attribute_exists(PK)'];
  if (change.sprintId !== null) {
    names['#owner_status'] = 'status';
    values[':completing'] = 'completing';
    conditions.push('#owner_status <> :completing');
  }
  const delta: Record<string, number> = { ...(change.delta as Record<string, number>) };
  if (change.listRev) {
    const rev = change.sprintId === null ? 'backlog_rev' : 'positions_rev';
    delta[rev] = 1;
    names[`#${rev}_c`] = rev;
    if (change.listRev.expected === undefined) {
      conditions.push(`attribute_not_exists(#${rev}_c)`);
    } else {
      values[':list_rev'] = change.listRev.expected;
      conditions.push(`#${rev}_c = :list_rev`);
    }
  }
  const add = addCounters(delta, names, values);
  return {
    item: {
      // Nothing to add (a move that leaves the counters as they were) still checks the parent.
      ...(add
        ? {
            Update: {
              TableName: tableName,
              Key: change.sprintId === null ? keys.project(orgId, projectId) : keys.sprint(orgId, projectId, change.sprintId),
              UpdateExpression: `ADD ${add}`,
              ConditionExpression: conditions.join(' AND '),
              ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
              ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            },
          }
        : {
            ConditionCheck: {
              TableName: tableName,
              Key: change.sprintId === null ? keys.project(orgId, projectId) : keys.sprint(orgId, projectId, change.sprintId),
              ConditionExpression: conditions.join(' AND '),
              ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
              ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            },
          }),
    },
    reason,
  };
}

/**
 * Creates an issue: the issue, its list owner's counters (which prove the sprint exists), the
 * project's existence (nothing may be written under a deleted project: its cascade would miss
 * it) and the assignee's account, in one transaction.
 */
export async function insertIssue(
  orgId: number,
  projectId: number,
  issue: Issue,
  parent: ParentChange,
  assigneeId: number | null,
): Promise<void> {
  const items: GuardedItem[] = [
    {
      item: {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.issue(orgId, projectId, issue.id),
            LSK: listKey(issue.sprint_id, issue.position, issue.id),
            type: 'issue',
            org_id: orgId,
            ...issue,
            rev: 0,
            comments_count: 0,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      reason: 'issue_exists',
    },
    listOwnerUpdate(orgId, projectId, parent, parent.sprintId === null ? 'project' : 'sprint'),
  ];
  if (parent.sprintId !== null) {
    items.push({
      item: {
        ConditionCheck: {
          TableName: tableName,
          Key: keys.project(orgId, projectId),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      reason: 'project',
    });
  }
  if (assigneeId !== null) items.push(accountExists(orgId, assigneeId, 'assignee'));
  await transact(items);
}

/** Everything one issue update writes. */
export interface IssueWrite {
  id: number;
  /** The `rev` the decision was made on. */
  rev: number | undefined;
  /** Fields to set (API names), `updated_at` included. */
  set: Record<string, unknown>;
  /** New list and/or position. */
  placement?: { sprintId: number | null; position: number } | undefined;
  /** Counter changes and list revision checks, at most one per list owner. */
  parents: ParentChange[];
  /** Neighbours renumbered in the target list, in the same transaction. */
  renumber?: Renumbering[] | undefined;
  /** A new assignee, checked in the same transaction. */
  assigneeId?: number | undefined;
}

function renumberItem(orgId: number, projectId: number, sprintId: number | null, r: Renumbering): GuardedItem {
  return {
    item: {
      Update: {
        TableName: tableName,
        Key: keys.issue(orgId, projectId, r.id),
        UpdateExpression: 'SET LSK = :lsk, #position = :to',
        ConditionExpression: 'LSK = :old',
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: {
          ':lsk': listKey(sprintId, r.to, r.id),
          ':to': r.to,
          ':old': listKey(sprintId, r.from, r.id),
        },
      },
    },
    reason: 'stale',
  };
}

/**
 * Applies one issue update as a single transaction: the issue (conditioned on its `rev`), the
 * counters of the lists it leaves and joins, the list revision of a computed position, the
 * renumbered neighbours (each conditioned on its old key) and the assignee check.
 */
export async function writeIssue(orgId: number, projectId: number, write: IssueWrite): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':rev': write.rev ?? 0, ':one': 1 };
  const fields: Record<string, unknown> = { ...write.set };
  if (write.placement) {
    fields.position = write.placement.position;
    fields.LSK = listKey(write.placement.sprintId, write.placement.position, write.id);
  }
  const sets = setAssignments(fields, names, values);
  const items: GuardedItem[] = [
    {
      item: {
        Update: {
          TableName: tableName,
          Key: keys.issue(orgId, projectId, write.id),
          UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD rev :one`,
          ConditionExpression: revisionCondition(write.rev),
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
        },
      },
      reason: 'stale',
      resource: true,
    },
    ...write.parents.map((p) => listOwnerUpdate(orgId, projectId, p, 'stale')),
  ];
  const target = write.placement?.sprintId ?? null;
  for (const r of write.renumber ?? []) items.push(renumberItem(orgId, projectId, target, r));
  if (write.assigneeId !== undefined) items.push(accountExists(orgId, write.assigneeId, 'assignee'));
  await transact(items);
}

/** Renumbers neighbours on their own: the rare re-append of a packed run (lib/domain/issues.ts). */
export async function renumberIssues(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  moves: Renumbering[],
): Promise<void> {
  if (moves.length > 0) await transact(moves.map((r) => renumberItem(orgId, projectId, sprintId, r)));
}

/**
 * Deletes an issue in one transaction: the issue (conditioned on the `rev` its counters were read
 * with) and its list owner's counters. Its comments are unreachable at once (reads check the
 * issue) and removed by the cascade consumer.
 */
export async function deleteIssue(orgId: number, projectId: number, issue: IssueItem, parent: ParentChange): Promise<void> {
  await transact([
    {
      item: {
        Delete: {
          TableName: tableName,
          Key: keys.issue(orgId, projectId, issue.id),
          ConditionExpression: revisionCondition(issue.rev),
          ExpressionAttributeValues: { ':rev': issue.rev ?? 0 },
        },
      },
      reason: 'stale',
      resource: true,
    },
    listOwnerUpdate(orgId, projectId, parent, 'stale'),
  ]);
}

/**
 * Keys-only read of a list (LSI1Keys), in list order or backwards, optionally from a sibling on
 * (inclusive), up to `limit` keys.
 */
async function readListKeys(
  collection: Collection,
  options: { forward: boolean; limit?: number | undefined; from?: string | undefined },
): Promise<{ slots: Slot[]; exhausted: boolean }> {
  const slots: Slot[] = [];
  let start: Record<string, unknown> | undefined;
  const range = options.from
    ? options.forward
      ? { ':low': options.from, ':high': `${collection.prefix}\uffff` }
      : { ':low': collection.prefix, ':high': options.from }
    : undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'LSI1Keys',
        KeyConditionExpression: range ? 'PK = :pk AND LSK BETWEEN :low AND :high' : 'PK = :pk AND begins_with(LSK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.pk, ...(range ?? { ':prefix': collection.prefix }) },
        ScanIndexForward: options.forward,
        ConsistentRead: true,
        ...(options.limit === undefined ? {} : { Limit: options.limit - slots.length }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      const parsed = parseIssueListKey(String(item.LSK));
      if (parsed) slots.push({ id: parsed.issueId, position: parsed.position });
    }
    start = out.LastEvaluatedKey;
  } while (start && (options.limit === undefined || slots.length < options.limit));
  return { slots, exhausted: !start || (options.limit !== undefined && slots.length < options.limit) };
}

/**
 * One keys-only Query (LSI1Keys) for a move to `place` (see lib/domain/positions.ts): from the
 * nearer end of the list, min(place, siblings - place) + margin keys, never the whole list.
 */
export async function windowAroundPlace(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  options: { place: number; siblings: number; movedId: number; margin: number },
): Promise<ListWindow> {
  const { forward, limit } = windowRead(options.place, options.siblings, options.margin);
  const read = await readListKeys(listCollection(orgId, projectId, sprintId), { forward, limit });
  return windowOf(read.slots, forward, read.exhausted, options.siblings, options.movedId);
}

/**
 * Siblings from `from` (inclusive) towards the end of the list (`forward`) or its start, nearest
 * first, keys only, up to `limit` (all of them without one).
 */
export async function readSide(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  from: Slot,
  forward: boolean,
  limit?: number,
): Promise<{ slots: Slot[]; exhausted: boolean }> {
  return readListKeys(listCollection(orgId, projectId, sprintId), {
    forward,
    limit,
    from: listKey(sprintId, from.position, from.id),
  });
}

/**
 * THE way issues are appended, in the given order, to the end of a list (a sprint, or the backlog
 * with `null`) when they come from another list: the transaction items that move them, each
 * conditioned on still being in `from` (so a step repeated by a second finisher moves nothing
 * twice), and on its `rev` when one is given. Positions come from the project's allocator (one atomic ADD for the whole run), so they
 * are above everything in the list when the items commit in order. The caller adds the counters
 * of both lists to the same transaction. Sprint completion uses it (lib/domain/sprints.ts).
 */
export async function appendToList(
  orgId: number,
  projectId: number,
  list: number | null,
  issues: { id: number; rev?: number | undefined }[],
  move: { from: number; now: string },
): Promise<GuardedItem[]> {
  if (issues.length === 0) return [];
  const first = await allocatePositions(orgId, projectId, issues.length);
  return issues.map((issue, i) => {
    const position = appendedPosition(first + i);
    return {
      item: {
        Update: {
          TableName: tableName,
          Key: keys.issue(orgId, projectId, issue.id),
          UpdateExpression: 'SET sprint_id = :to, LSK = :lsk, #position = :position, updated_at = :now ADD rev :one',
          // With `rev`: also unchanged since it was read (a move decided on a read, not on a frozen sprint).
          ConditionExpression: `sprint_id = :from AND ${issue.rev === undefined ? 'attribute_exists(PK)' : revisionCondition(issue.rev)}`,
          ExpressionAttributeNames: { '#position': 'position' },
          ExpressionAttributeValues: {
            ...(issue.rev === undefined ? {} : { ':rev': issue.rev }),
            ':to': list,
            ':from': move.from,
            ':lsk': listKey(list, position, issue.id),
            ':position': position,
            ':now': move.now,
            ':one': 1,
          },
        },
      },
      reason: 'moved',
    };
  });
}

/** What sprint completion needs of an issue it moves. */
export interface OpenIssue {
  id: number;
  rev: number;
  status: IssueStatus;
  story_points: number | null;
}

/**
 * The issues of a sprint whose status is one of `statuses`, in list order. One Query per MB of
 * the sprint's issues (the filter applies after the read).
 */
export async function sprintIssuesWithStatus(
  orgId: number,
  projectId: number,
  sprintId: number,
  statuses: readonly IssueStatus[],
): Promise<OpenIssue[]> {
  const collection = collections.sprintIssues(orgId, projectId, sprintId);
  const open: OpenIssue[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'LSI1',
        KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
        FilterExpression: `#status IN (${statuses.map((_, i) => `:s${i}`).join(', ')})`,
        ProjectionExpression: 'id, rev, #status, story_points',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': collection.pk,
          ':prefix': collection.prefix,
          ...Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status])),
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      open.push({
        id: Number(item.id),
        rev: Number(item.rev ?? 0),
        status: item.status as IssueStatus,
        story_points: (item.story_points as number | null | undefined) ?? null,
      });
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return open;
}

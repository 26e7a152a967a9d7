import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Sprint, SprintStatus } from '../schemas/sprints.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { collections, keys, listKeys } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import type { ProjectItem } from './projects.ts';
import { nextId } from './sequences.ts';
import {
  batchGet,
  equalsCondition,
  Refused,
  revisionCondition,
  setAssignments,
  transact,
  type GuardedItem,
} from './transactions.ts';

/** Counters a sprint keeps over its issues; they move in the same transaction as the issues. */
export type SprintCounterName = 'issues_count' | 'total_story_points' | 'completed_story_points' | 'open_issues_count';
export type SprintCounters = Record<SprintCounterName, number>;

/** The stored sprint: the resource plus what only the data layer reads. */
export interface SprintItem extends Sprint {
  sprint_lead_id: number | null;
  /** Issues not `done`/`cancelled`: completion checks it reached zero. */
  open_issues_count: number;
  /** Bumped by every move that computes a position in this sprint's list (see lib/db/issues.ts). */
  positions_rev?: number;
}

/** What the domain decides about a sprint's editable fields. */
export interface SprintFields {
  name: string;
  slug: string;
  description: string | null;
  start_date: string | null;
  end_date: string | null;
  sprint_lead_id: number | null;
}

export const toSprint = (record: object): Sprint => {
  const item = record as Record<string, unknown>;
  const nullable = (v: unknown) => (v as string | null | undefined) ?? null;
  return {
    id: Number(item.id),
    project_id: Number(item.project_id),
    name: String(item.name),
    slug: String(item.slug),
    description: nullable(item.description),
    status: item.status as SprintStatus,
    start_date: nullable(item.start_date),
    end_date: nullable(item.end_date),
    actual_end_date: nullable(item.actual_end_date),
    issues_count: Number(item.issues_count ?? 0),
    total_story_points: Number(item.total_story_points ?? 0),
    completed_story_points: Number(item.completed_story_points ?? 0),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
  };
};

/** The sprint and its project, in one consistent BatchGet (the ancestor check of every sprint read). */
export async function getSprintFamily(orgId: number, projectId: number, sprintId: number) {
  const [project, sprint] = await batchGet([keys.project(orgId, projectId), keys.sprint(orgId, projectId, sprintId)]);
  return { project: project as ProjectItem | undefined, sprint: sprint as SprintItem | undefined };
}

export async function getSprintItem(orgId: number, projectId: number, sprintId: number): Promise<SprintItem | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: tableName, Key: keys.sprint(orgId, projectId, sprintId), ConsistentRead: true }),
  );
  return out.Item as SprintItem | undefined;
}

/** A page of a project's sprints, read with the project (its `sprints_count`; undefined if gone). */
export async function listSprints(orgId: number, projectId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.sprints(orgId, projectId), page, [
    keys.project(orgId, projectId),
  ]);
  return { page: result, project: related[0] as ProjectItem | undefined };
}

/** A ConditionCheck that an account of the organisation exists (assignees, sprint leads). */
export function accountExists(orgId: number, accountId: number, reason: string): GuardedItem {
  return {
    item: {
      ConditionCheck: { TableName: tableName, Key: keys.account(orgId, accountId), ConditionExpression: 'attribute_exists(PK)' },
    },
    reason,
  };
}

/**
 * Creates a sprint (status `planning`, counters at zero): sprint, the project's `sprints_count`
 * (which also proves the project exists) and the sprint lead's account check, in one transaction.
 * Refusals: `project`, `sprint_lead`.
 */
export async function insertSprint(orgId: number, projectId: number, fields: SprintFields): Promise<Sprint> {
  const id = await nextId(orgId, 'sprint');
  const now = new Date().toISOString();
  const item: SprintItem = {
    id,
    project_id: projectId,
    ...fields,
    status: 'planning',
    actual_end_date: null,
    issues_count: 0,
    total_story_points: 0,
    completed_story_points: 0,
    open_issues_count: 0,
    positions_rev: 0,
    created_at: now,
    updated_at: now,
  };
  const items: GuardedItem[] = [
    {
      item: {
        Put: {
          TableName: tableName,
          Item: { ...keys.sprint(orgId, projectId, id), LSK: listKeys.sprint(id), type: 'sprint', org_id: orgId, ...item },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      reason: 'sprint_exists',
    },
    {
      item: {
        Update: {
          TableName: tableName,
          Key: keys.project(orgId, projectId),
          UpdateExpression: 'ADD sprints_count :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      reason: 'project',
    },
  ];
  if (fields.sprint_lead_id !== null) items.push(accountExists(orgId, fields.sprint_lead_id, 'sprint_lead'));
  await transact(items);
  return toSprint(item);
}

/**
 * Writes the changed fields of a sprint (SET per field, so concurrent updates of other fields are
 * kept). `expected` holds stored values the change was validated against (the other date of the
 * `end_date >= start_date` rule): the write is refused (`sprint`) if they moved meanwhile, or if
 * the sprint is gone. A new lead is checked in the same transaction (`sprint_lead`).
 */
export async function updateSprintFields(
  orgId: number,
  projectId: number,
  sprintId: number,
  changes: Partial<SprintFields>,
  expected: Partial<Pick<SprintFields, 'start_date' | 'end_date'>>,
): Promise<string> {
  const now = new Date().toISOString();
  const names: Record<string, string> = { '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':updated_at': now };
  const sets = ['#updated_at = :updated_at', ...setAssignments(changes, names, values)];
  const conditions = ['attribute_exists(PK)'];
  for (const [k, v] of Object.entries(expected)) conditions.push(equalsCondition(k, v, names, values));
  const items: GuardedItem[] = [
    {
      item: {
        Update: {
          TableName: tableName,
          Key: keys.sprint(orgId, projectId, sprintId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      reason: 'sprint',
    },
  ];
  if (typeof changes.sprint_lead_id === 'number') items.push(accountExists(orgId, changes.sprint_lead_id, 'sprint_lead'));
  await transact(items);
  return now;
}

/**
 * planning -> active as one conditional write: of two concurrent activations exactly one passes
 * the `status = planning` condition. `expectedStart` is the start date the caller read (the new
 * one is derived from it). Refused (`sprint`) when the sprint is gone or either moved.
 */
export async function setSprintActive(
  orgId: number,
  projectId: number,
  sprintId: number,
  startDate: string,
  expectedStart: string | null,
): Promise<SprintItem> {
  const names: Record<string, string> = { '#status': 'status', '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = {
    ':active': 'active',
    ':planning': 'planning',
    ':start': startDate,
    ':now': new Date().toISOString(),
  };
  const startGuard = equalsCondition('start_date', expectedStart, names, values);
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.sprint(orgId, projectId, sprintId),
        UpdateExpression: 'SET #status = :active, #start_date = :start, #updated_at = :now',
        ConditionExpression: `#status = :planning AND ${startGuard}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as SprintItem;
  } catch (err) {
    if (isConditionFailed(err)) throw new Refused('sprint');
    throw err;
  }
}

/**
 * Deletes a sprint in one transaction: the sprint and the project's `sprints_count`. Its issues
 * (and their comments) are unreachable at once, since every read checks the sprint, and are
 * removed by the cascade consumer. Refusals: `sprint` (absent), `project` (absent).
 */
export async function deleteSprint(orgId: number, projectId: number, sprintId: number): Promise<void> {
  await transact([
    {
      item: {
        Delete: {
          TableName: tableName,
          Key: keys.sprint(orgId, projectId, sprintId),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      reason: 'sprint',
    },
    {
      item: {
        Update: {
          TableName: tableName,
          Key: keys.project(orgId, projectId),
          UpdateExpression: 'ADD sprints_count :minus',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':minus': -1 },
        },
      },
      reason: 'project',
    },
  ]);
}

/** `ADD` clause for non-zero counter deltas (names/values filled in). Empty string when all are zero. */
export function addCounters(
  delta: Partial<Record<string, number>>,
  names: Record<string, string>,
  values: Record<string, unknown>,
  tag = 'd',
): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(delta)) {
    if (!v) continue;
    names[`#${k}`] = k;
    values[`:${tag}_${k}`] = v;
    parts.push(`#${k} :${tag}_${k}`);
  }
  return parts.join(', ');
}

/** An issue the completion of a sprint returns to the backlog, at a position reserved for it. */
export interface ReturnedIssue {
  id: number;
  rev: number;
  position: number;
}

export interface CompletionStep {
  /** Open issues moved by this step (at most ~96: one transaction holds 100 items). */
  moves: ReturnedIssue[];
  /** What leaves the sprint's counters with them (negative values). */
  sprintDelta: SprintCounters;
  /** What the sprint's and the backlog's rank counters move by (lib/domain/positions.ts: appendToEnd). */
  sprintRank: Record<string, number>;
  backlogRank: Record<string, number>;
  now: string;
  /** Reserve backlog positions: the project's `position_seq` moves from `from` to `to` (first step). */
  reserve?: { from: number | undefined; to: number } | undefined;
  /** The last step also completes the sprint; it checks that no open issue is left behind. */
  finish?: { actualEndDate: string } | undefined;
}

/**
 * One transaction of a sprint completion: open issues back to the backlog (each conditioned on the
 * `rev` it was read with), the sprint's and the project's counters moved by exactly what moved,
 * and, on the last step, the status change. Every step requires the sprint to still be `active`,
 * so two concurrent completions cannot both finish. Refusals: `sprint` (not active any more, gone,
 * or an open issue appeared), `issue` (one changed meanwhile), `positions` (the reservation raced
 * another allocation), `project`.
 */
export async function completionStep(orgId: number, projectId: number, sprintId: number, step: CompletionStep): Promise<void> {
  const items: GuardedItem[] = step.moves.map((m) => ({
    item: {
      Update: {
        TableName: tableName,
        Key: keys.issue(orgId, projectId, m.id),
        UpdateExpression: 'SET sprint_id = :null, LSK = :lsk, #position = :position, updated_at = :now ADD rev :one',
        ConditionExpression: revisionCondition(m.rev),
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: {
          ':null': null,
          ':lsk': listKeys.backlogIssue(m.position, m.id),
          ':position': m.position,
          ':now': step.now,
          ':one': 1,
          ':rev': m.rev,
        },
      },
    },
    reason: 'issue',
  }));

  const names: Record<string, string> = { '#status': 'status', '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':active': 'active', ':now': step.now };
  const add = addCounters({ ...step.sprintDelta, ...step.sprintRank }, names, values);
  const sets = ['#updated_at = :now'];
  const conditions = ['#status = :active'];
  if (step.finish) {
    sets.push('#status = :completed', 'actual_end_date = :actual_end_date');
    values[':completed'] = 'completed';
    values[':actual_end_date'] = step.finish.actualEndDate;
    // Open issues still counted after this step's moves must be none (a sprint written without
    // the counter cannot say, and is trusted).
    conditions.push('(attribute_not_exists(open_issues_count) OR open_issues_count = :open_now)');
    values[':open_now'] = step.moves.length;
  }
  items.push({
    item: {
      Update: {
        TableName: tableName,
        Key: keys.sprint(orgId, projectId, sprintId),
        UpdateExpression: `SET ${sets.join(', ')}${add ? ` ADD ${add}` : ''}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    reason: 'sprint',
  });

  if (step.moves.length > 0 || step.reserve) {
    const pNames: Record<string, string> = {};
    const pValues: Record<string, unknown> = {};
    const pConditions = ['attribute_exists(PK)'];
    let expression = '';
    if (step.moves.length > 0) {
      pValues[':returned'] = step.moves.length;
      const rank = addCounters(step.backlogRank, pNames, pValues, 'r');
      expression = `ADD backlog_count :returned${rank ? `, ${rank}` : ''}`;
    }
    if (step.reserve) {
      pValues[':seq_to'] = step.reserve.to;
      expression = `SET position_seq = :seq_to ${expression}`;
      pConditions.push(equalsCondition('position_seq', step.reserve.from, pNames, pValues));
    }
    items.push({
      item: {
        Update: {
          TableName: tableName,
          Key: keys.project(orgId, projectId),
          UpdateExpression: expression,
          ConditionExpression: pConditions.join(' AND '),
          ...(Object.keys(pNames).length ? { ExpressionAttributeNames: pNames } : {}),
          ExpressionAttributeValues: pValues,
        },
      },
      reason: step.reserve ? 'positions' : 'project',
    });
  }
  await transact(items);
}

import { defaultStates, type WorkflowState } from '../../model/workflow.ts';
import { tableName } from '../core/client.ts';
import { deletionMarker } from '../core/deletions.ts';
import { collections, keys } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { batchGet, putNew, Refused, transact, type GuardedItem } from '../core/transactions.ts';
import { COLUMN_COUNT } from '../../model/derivations.ts';
import {
  entryOf,
  LAST_ID,
  movedAttribute,
  newWorkflow,
  REV,
  stateAttribute,
  stateItem,
  stateOfItem,
  stateRecord,
} from './workflow.ts';

export { newWorkflow, readStateFamily, stateItem, stateOfItem, workflowOf } from './workflow.ts';

/** The writes of a project's workflow (lib/db/projects/workflow.ts says how it is stored). */

/**
 * The migration's write of a new workflow on a project that has none: the project item (only if
 * it is there and still has none) and the state items, in one transaction. False when the project
 * is gone or got its workflow meanwhile.
 */
export async function giveWorkflow(orgId: number, projectId: number, states: WorkflowState[]): Promise<boolean> {
  const { attributes, items } = newWorkflow(orgId, projectId, states);
  // Its revision is absent until now (the write's condition): the write's ADD makes it 1.
  const { [REV]: _first, ...set } = attributes;
  try {
    await transact([workflowWrite(orgId, projectId, undefined, { set }), ...items]);
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

/** The Update of the project item that writes the workflow's change, on condition that it is at `rev`. */
function workflowWrite(
  orgId: number,
  projectId: number,
  rev: number | undefined,
  change: { set?: Record<string, unknown>; remove?: string[]; count?: number },
): GuardedItem {
  const names: Record<string, string> = { '#rev': REV };
  const values: Record<string, unknown> = { ':one': 1 };
  const sets = Object.entries(change.set ?? {}).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = (change.remove ?? []).map((name, j) => {
    names[`#r${j}`] = name;
    return `#r${j}`;
  });
  const adds = ['#rev :one'];
  if (change.count) {
    names['#count'] = 'states_count';
    values[':count'] = change.count;
    adds.push('#count :count');
  }
  if (rev !== undefined) values[':rev'] = rev;
  const clauses = [sets.length > 0 && `SET ${sets.join(', ')}`, removes.length > 0 && `REMOVE ${removes.join(', ')}`];
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        UpdateExpression: [...clauses, `ADD ${adds.join(', ')}`].filter(Boolean).join(' '),
        ConditionExpression:
          rev === undefined ? 'attribute_exists(PK) AND attribute_not_exists(#rev)' : 'attribute_exists(PK) AND #rev = :rev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    reason: 'workflow',
  };
}

/** Adds a state to a workflow read at `rev`: the state item and its entry on the project, in one transaction. */
export async function insertState(
  orgId: number,
  projectId: number,
  rev: number | undefined,
  state: WorkflowState,
): Promise<void> {
  await transact([
    putNew(stateRecord(orgId, projectId, state), 'state'),
    workflowWrite(orgId, projectId, rev, { set: { [stateAttribute(state.id)]: entryOf(state), [LAST_ID]: state.id }, count: 1 }),
  ]);
}

/**
 * Writes a changed state (`state`: as read, `next`: as changed) to a workflow read at `rev`: its
 * item (one version up) and its entry on the project, which keeps the same version.
 */
export async function updateState(
  orgId: number,
  projectId: number,
  rev: number | undefined,
  state: WorkflowState,
  next: WorkflowState,
): Promise<WorkflowState> {
  const written = { ...next, version: state.version + 1 };
  await transact([
    { ...stateFieldsWrite(orgId, projectId, next), resource: true },
    workflowWrite(orgId, projectId, rev, { set: { [stateAttribute(state.id)]: entryOf(written) } }),
  ]);
  return written;
}

/** The Update of a state's item that writes its changeable fields as `next` has them (its version goes up with it). */
function stateFieldsWrite(orgId: number, projectId: number, next: WorkflowState): GuardedItem {
  const set = {
    name: next.name,
    color: next.color,
    order: next.order,
    wipLimit: next.wipLimit,
    updatedAt: next.updatedAt,
    allowedNext: next.allowedNext,
    requiredFields: next.requiredFields,
    refuseBlocked: next.refuseBlocked,
  };
  return stateItem.updateAt(keys.state(orgId, projectId, next.id), { set, if: { exists: true } }, 'state');
}

/** The key of a state's item (what its ETag names). */
export const stateKey = (orgId: number, projectId: number, stateId: number) => keys.state(orgId, projectId, stateId);

/**
 * Deletes a state from a workflow read at `rev`, its issues going to `moveTo`: the state item, its
 * entry on the project and, in its place, where its issues went (`WM#<id>`: they show `moveTo`
 * from then on), with the delete's marker, in one transaction. The cascade then writes `moveTo`
 * on each of its issues (`moveIssuesOffState`, lib/jobs/cascade.ts). `ruled`: the other states as
 * their rules read without the deleted one (`rulesWithout`), each item and entry rewritten in the
 * same transaction, so that no rule ever names a state that is gone.
 */
export async function deleteState(
  orgId: number,
  projectId: number,
  rev: number | undefined,
  state: WorkflowState,
  moveTo: number,
  ruled: readonly WorkflowState[] = [],
) {
  const key = keys.state(orgId, projectId, state.id);
  const entries = Object.fromEntries(ruled.map((s) => [stateAttribute(s.id), entryOf({ ...s, version: s.version + 1 })]));
  await transact([
    {
      item: { Delete: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(PK)' } },
      reason: 'state',
      resource: true,
    },
    workflowWrite(orgId, projectId, rev, {
      set: { [movedAttribute(state.id)]: moveTo, ...entries },
      remove: [stateAttribute(state.id)],
      count: -1,
    }),
    ...ruled.map((s) => stateFieldsWrite(orgId, projectId, s)),
    ...deletionMarker(key),
  ]);
}

/**
 * How many issues each column key holds in the whole project (`state-columns` counters of the
 * backlog, on the project item, and of every sprint), read with the project item: one GetItem and
 * one Query of the project's sprints, side by side, with the state `stateId` (as its item is, or
 * undefined). Undefined when the project is gone.
 */
export async function projectColumnCounts(orgId: number, projectId: number, stateId: number) {
  const counts = new Map<string, number>();
  const addFrom = (holder: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(holder)) {
      if (!name.startsWith(COLUMN_COUNT)) continue;
      const key = name.slice(COLUMN_COUNT.length);
      counts.set(key, (counts.get(key) ?? 0) + Number(value));
    }
  };
  const sprints = collections.sprints(orgId, projectId);
  // Side by side: the project (its workflow, the backlog's counters) and its sprints.
  const [[project, state]] = await Promise.all([
    batchGet([keys.project(orgId, projectId), keys.state(orgId, projectId, stateId)]),
    queryPages(
      {
        IndexName: 'LSI1',
        KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
        ExpressionAttributeValues: { ':pk': sprints.pk, ':prefix': sprints.prefix },
      },
      {},
      (items) => items.forEach(addFrom),
    ),
  ]);
  if (!project) return undefined;
  addFrom(project);
  return { project, state: state && stateOfItem(state), counts };
}

/**
 * Gives each project of the organisation that has no workflow its default one (`giveWorkflow`):
 * the migration of projects made before workflows existed. Returns how many it gave one.
 */
export async function giveMissingWorkflows(orgId: number): Promise<number> {
  const missing: number[] = [];
  const projects = collections.projects(orgId);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'attribute_not_exists(#rev)',
      ExpressionAttributeNames: { '#rev': REV },
      ExpressionAttributeValues: { ':pk': projects.pk, ':prefix': projects.prefix },
      ProjectionExpression: 'id',
    },
    {},
    (items) => {
      for (const item of items) missing.push(Number(item.id));
    },
  );
  let given = 0;
  for (const projectId of missing) if (await giveDefaultWorkflow(orgId, projectId)) given++;
  return given;
}

/** Gives a project without a workflow its default one; false when it is gone or has one. */
export async function giveDefaultWorkflow(orgId: number, projectId: number): Promise<boolean> {
  return giveWorkflow(orgId, projectId, defaultStates(new Date().toISOString()));
}

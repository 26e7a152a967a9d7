import { byBoardOrder, defaultStates, type Workflow, type WorkflowState } from '../model/workflow.ts';
import { isStateCategory, type RequiredField, type StateCategory } from '../vocabulary/workflow.ts';
import { tableName } from './client.ts';
import { deletionMarker } from './deletions.ts';
import { attribute, itemKind } from './item.ts';
import { collections, keys, listKeys } from './keys.ts';
import { queryPages } from './query.ts';
import { batchGet, putNew, Refused, transact, type GuardedItem } from './transactions.ts';
import { versionOf } from './versions.ts';
import { COLUMN_COUNT } from '../model/derivations.ts';

/**
 * A project's workflow states (docs/workflows.md). Each state is an item of the project's partition
 * (`STATE#s`), and the whole workflow is also kept on the project item, written in the same
 * transaction as the state: one attribute per state (`WS#<id>`: name, colour, category, order, WIP
 * limit, times), the home state of each category (`WH#<category>`: where issues written before
 * workflows existed are), where each deleted state's issues went (`WM#<id>`) and `workflow_rev`. Every issue read and write already reads the project item
 * (its ancestor check), so an issue's state, its allowed next states and a write's checks cost no
 * DynamoDB call. The cascade of a state's delete is lib/db/state-cascade.ts. Every change of the workflow is conditioned on the `workflow_rev` it read, so two
 * changes at once never undo each other's checks (names unique, one state per category left).
 *
 * Refusal reasons: `workflow` (the project changed since the read, or is gone: the caller reads
 * again), `state` (gone).
 */

export const stateItem = itemKind({
  type: 'state',
  key: { PK: 'ORG#o#P#p', SK: 'STATE#s', LSK: 'STATE#s' },
  about: 'workflow state of the project (a copy on the project item: lib/db/states.ts)',
  attributes: {
    id: attribute.number('id'),
    projectId: attribute.number('project_id'),
    name: attribute.string('name'),
    color: attribute.string('color'),
    category: attribute.oneOf<StateCategory>('category'),
    order: attribute.number('order'),
    wipLimit: attribute.nullableNumber('wip_limit'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
    allowedNext: {
      stored: 'allowed_next_state_ids',
      read: (v: unknown) => (Array.isArray(v) ? v.map(Number) : null),
      write: (v: number[] | null) => v,
    },
    requiredFields: {
      stored: 'required_fields',
      read: (v: unknown) => (Array.isArray(v) ? (v as RequiredField[]) : []),
      write: (v: RequiredField[]) => v,
    },
    refuseBlocked: { stored: 'refuse_blocked', read: (v: unknown) => v === true, write: (v: boolean) => v },
  },
});

const STATE_ENTRY = /^WS#(\d+)$/;
const HOME_ENTRY = /^WH#(\w+)$/;
const MOVED_ENTRY = /^WM#(\d+)$/;
const stateAttribute = (id: number) => `WS#${id}`;
const homeAttribute = (category: StateCategory) => `WH#${category}`;
const movedAttribute = (id: number) => `WM#${id}`;
const REV = 'workflow_rev';
const LAST_ID = 'state_seq';

type Entry = [string, string, string, number, number | null, string, string, number, number[] | null, string[], boolean];
const entryOf = (s: WorkflowState): Entry => [
  s.name,
  s.color,
  s.category,
  s.order,
  s.wipLimit,
  s.createdAt,
  s.updatedAt,
  s.version,
  s.allowedNext,
  s.requiredFields,
  s.refuseBlocked,
];

/** The workflow kept on a project item (no states for a project whose workflow was never made). */
export function workflowOf(project: object | undefined): Workflow {
  const workflow: Workflow = { states: [], homes: {}, moved: new Map(), rev: undefined, lastId: 0 };
  if (!project) return workflow;
  for (const [name, value] of Object.entries(project)) {
    let m = STATE_ENTRY.exec(name);
    if (m && Array.isArray(value)) {
      const [stateName, color, category, order, wip, createdAt, updatedAt, version, allowed, required, refuse] =
        value as unknown[];
      if (!isStateCategory(category)) continue;
      workflow.states.push({
        id: Number(m[1]),
        name: String(stateName),
        color: String(color),
        category,
        order: Number(order),
        wipLimit: wip === null || wip === undefined ? null : Number(wip),
        createdAt: String(createdAt),
        updatedAt: String(updatedAt),
        version: Number(version ?? 1),
        allowedNext: Array.isArray(allowed) ? allowed.map(Number) : null,
        requiredFields: Array.isArray(required) ? (required as RequiredField[]) : [],
        refuseBlocked: refuse === true,
      });
      continue;
    }
    m = HOME_ENTRY.exec(name);
    if (m && isStateCategory(m[1])) {
      workflow.homes[m[1]] = Number(value);
      continue;
    }
    m = MOVED_ENTRY.exec(name);
    if (m) workflow.moved.set(Number(m[1]), Number(value));
  }
  workflow.states.sort(byBoardOrder);
  const record = project as Record<string, unknown>;
  if (record[REV] !== undefined) workflow.rev = Number(record[REV]);
  workflow.lastId = Number(record[LAST_ID] ?? 0);
  return workflow;
}

/** A state as its item holds it, with the item's version (its ETag's). */
export function stateOfItem(item: object): WorkflowState {
  const { projectId: _project, ...fields } = stateItem.decode(item);
  return { ...fields, version: versionOf(item) };
}

/** The project and the state `stateId` (as its item is, or undefined), in one consistent BatchGet. */
export async function readStateFamily(orgId: number, projectId: number, stateId: number) {
  const [project, state] = await batchGet([keys.project(orgId, projectId), keys.state(orgId, projectId, stateId)]);
  return { project, state: state && stateOfItem(state) };
}

/** The stored state item of `state`. */
const stateRecord = (orgId: number, projectId: number, state: WorkflowState) => ({
  ...keys.state(orgId, projectId, state.id),
  LSK: listKeys.state(state.id),
  type: 'state',
  org_id: orgId,
  ...stateItem.encode({ ...state, projectId }),
});

/**
 * The project attributes and state items of a new workflow (`states`, each its category's home):
 * what a project create puts with the project, and what the migration gives a project made before
 * workflows existed.
 */
export function newWorkflow(orgId: number, projectId: number, states: WorkflowState[]) {
  const attributes: Record<string, unknown> = {
    [REV]: 1,
    states_count: states.length,
    [LAST_ID]: Math.max(0, ...states.map((s) => s.id)),
  };
  for (const s of states) {
    attributes[stateAttribute(s.id)] = entryOf(s);
    attributes[homeAttribute(s.category)] = s.id;
  }
  return { attributes, items: states.map((s) => putNew(stateRecord(orgId, projectId, s), 'state')) };
}

/**
 * The migration's write of a new workflow on a project that has none: the project item (only if
 * it is there and still has none) and the state items, in one transaction. False when the project
 * is gone or got its workflow meanwhile.
 */
export async function giveWorkflow(orgId: number, projectId: number, states: WorkflowState[]): Promise<boolean> {
  const { attributes, items } = newWorkflow(orgId, projectId, states);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(attributes).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    return `#a${i} = :a${i}`;
  });
  names['#rev'] = REV;
  try {
    await transact([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.project(orgId, projectId),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#rev)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        reason: 'workflow',
      },
      ...items,
    ]);
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
  const sets: string[] = [];
  let i = 0;
  for (const [name, value] of Object.entries(change.set ?? {})) {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
    i++;
  }
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
  const clauses = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
    `ADD ${adds.join(', ')}`,
  ];
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        UpdateExpression: clauses.join(' '),
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
  const fields = stateItem.encode({
    name: next.name,
    color: next.color,
    order: next.order,
    wipLimit: next.wipLimit,
    updatedAt: next.updatedAt,
    allowedNext: next.allowedNext,
    requiredFields: next.requiredFields,
    refuseBlocked: next.refuseBlocked,
  });
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([name, value], i) => {
    names[`#f${i}`] = name;
    values[`:f${i}`] = value;
    return `#f${i} = :f${i}`;
  });
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.state(orgId, projectId, state.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      reason: 'state',
      resource: true,
    },
    workflowWrite(orgId, projectId, rev, { set: { [stateAttribute(state.id)]: entryOf(written) } }),
  ]);
  return written;
}

/** The key of a state's item (what its ETag names). */
export const stateKey = (orgId: number, projectId: number, stateId: number) => keys.state(orgId, projectId, stateId);

/**
 * Deletes a state from a workflow read at `rev`, its issues going to `moveTo`: the state item, its
 * entry on the project and, in its place, where its issues went (`WM#<id>`: they show `moveTo`
 * from then on), with the delete's marker, in one transaction. The cascade then writes `moveTo`
 * on each of its issues (`moveIssuesOffState`, lib/db/cascade.ts).
 */
export async function deleteState(
  orgId: number,
  projectId: number,
  rev: number | undefined,
  state: WorkflowState,
  moveTo: number,
) {
  const key = keys.state(orgId, projectId, state.id);
  await transact([
    {
      item: { Delete: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(PK)' } },
      reason: 'state',
      resource: true,
    },
    workflowWrite(orgId, projectId, rev, {
      set: { [movedAttribute(state.id)]: moveTo },
      remove: [stateAttribute(state.id)],
      count: -1,
    }),
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

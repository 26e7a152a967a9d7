import { byBoardOrder, type Workflow, type WorkflowState } from '../../model/workflow.ts';
import { isStateCategory, type RequiredField, type StateCategory } from '../../vocabulary/workflow.ts';
import { attribute, itemKind } from '../core/item.ts';
import { keys, listKeys } from '../core/keys.ts';
import { batchGet, putNew } from '../core/transactions.ts';
import { versionOf } from '../core/versions.ts';

/**
 * A project's workflow states (docs/workflows.md). Each state is an item of the project's partition
 * (`STATE#s`), and the whole workflow is also kept on the project item, written in the same
 * transaction as the state: one attribute per state (`WS#<id>`: name, colour, category, order, WIP
 * limit, times), the home state of each category (`WH#<category>`: where issues written before
 * workflows existed are), where each deleted state's issues went (`WM#<id>`) and `workflow_rev`. Every issue read and write already reads the project item
 * (its ancestor check), so an issue's state, its allowed next states and a write's checks cost no
 * DynamoDB call. The cascade of a state's delete is lib/jobs/state-cascade.ts. Every change of the workflow is conditioned on the `workflow_rev` it read, so two
 * changes at once never undo each other's checks (names unique, one state per category left).
 *
 * Refusal reasons: `workflow` (the project changed since the read, or is gone: the caller reads
 * again), `state` (gone).
 */

export const stateItem = itemKind({
  type: 'state',
  key: { ...keys.state.placement, LSK: listKeys.state.placement },
  about: 'workflow state of the project (a copy on the project item: lib/db/projects/states.ts)',
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
export const stateAttribute = (id: number) => `WS#${id}`;
export const homeAttribute = (category: StateCategory) => `WH#${category}`;
export const movedAttribute = (id: number) => `WM#${id}`;
export const REV = 'workflow_rev';
export const LAST_ID = 'state_seq';

type Entry = [string, string, string, number, number | null, string, string, number, number[] | null, string[], boolean];
export const entryOf = (s: WorkflowState): Entry => [
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
export const stateRecord = (orgId: number, projectId: number, state: WorkflowState) => ({
  ...keys.state(orgId, projectId, state.id),
  LSK: listKeys.state(state.id),
  type: stateItem.type,
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

/** The workflows of projects (undefined for one gone), their project items read in one consistent BatchGet. */
export async function readWorkflows(
  projects: readonly { orgId: number; projectId: number }[],
): Promise<(Workflow | undefined)[]> {
  const items = await batchGet(projects.map((p) => keys.project(p.orgId, p.projectId)));
  return items.map((item) => (item ? workflowOf(item) : undefined));
}

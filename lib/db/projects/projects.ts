import type { Project, ProjectCreate, ProjectUpdate } from '../../schemas/projects.ts';
import { tableName } from '../core/client.ts';
import { attribute, itemKind, type Fields, type Stored } from '../core/item.ts';
import { deletionMarker } from '../core/deletions.ts';
import { reservedNumbersPut } from '../imports/imports.ts';
import { collections, keys, listKeys } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import {
  batchGet,
  getItem,
  addTo,
  Refused,
  rereadOnStale,
  sentFields,
  STALE,
  putNew,
  transact,
  updateResource,
  type GuardedItem,
} from '../core/transactions.ts';
import { advance, ISSUE_ID_BLOCK, issueIdBlock } from '../core/sequences.ts';
import { versionOf, withVersion } from '../core/versions.ts';
import { defaultStates, type WorkflowState } from '../../model/workflow.ts';
import { newWorkflow } from './workflow.ts';
import { organisationCounter, organisationOf, trashRetentionOf } from '../organisation/organisation.ts';
import { trashPut } from '../core/trash.ts';
import { trashTitle } from '../../model/trash.ts';

/**
 * Why a project write can be refused (`Refused.reason`): the project is gone, the prefix belongs
 * to another project, or the organisation is gone.
 */
export const projectRefusals = { project: 'project', prefixTaken: 'prefix_taken', organisation: 'organisation' } as const;

/**
 * The project item, declared once (lib/db/core/item.ts): what its answer shows, its backlog's count and
 * revision, its sequences and its block of issue ids. Its backlog's rank index and board columns
 * (attributes per block and column), its workflow (lib/db/projects/workflow.ts) and its label catalogue
 * (lib/db/issues/labels.ts) are kept under names of their own, by lib/db alone.
 */
export const projectItem = itemKind({
  type: 'project',
  key: { ...keys.project.placement, LSK: listKeys.project.placement },
  about: 'project (+ counters, issue and position sequences, its workflow)',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    name: attribute.string('name'),
    prefix: attribute.string('prefix'),
    description: attribute.nullableString('description'),
    documentationUrl: attribute.nullableString('documentation_url'),
    productionUrl: attribute.nullableString('production_url'),
    githubRepoOwner: attribute.nullableString('github_repo_owner'),
    githubRepoName: attribute.nullableString('github_repo_name'),
    sprintsCount: attribute.counter('sprints_count'),
    /** Its labels (lib/db/issues/labels.ts: written with each label's entry in the catalogue kept on it). */
    labelsCount: attribute.counter('labels_count'),
    /** Bumped by every change of its custom fields' definitions (kept on it: lib/db/projects/custom-fields.ts), which are conditioned on it. */
    fieldsRev: attribute.counter('fields_rev'),
    /** The last id given to one of its custom fields or their options. */
    fieldSeq: attribute.counter('field_seq'),
    /** Its backlog's count of issues (lib/model/sprint-counters.ts: `BACKLOG_COUNT`). */
    backlogCount: attribute.counter('backlog_count'),
    /** Bumped by every move that computes a position in the backlog (lib/db/issues/issues.ts). */
    backlogRev: attribute.counter('backlog_rev'),
    issueSeq: attribute.counter('issue_seq'),
    positionSeq: attribute.counter('position_seq'),
    /** The project's block of issue ids, `[issue_id_next, issue_id_end)` (lib/db/core/sequences.ts). */
    issueIdNext: attribute.counter('issue_id_next'),
    issueIdEnd: attribute.counter('issue_id_end'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});

/**
 * The guard of a project prefix in an organisation, written with the project (and moved by a
 * change of its prefix): a second project of the prefix is refused `prefix_taken`; a name
 * lookup finds the project by it (lib/db/projects/names.ts).
 */
export const prefixGuardItem = itemKind({
  key: keys.prefix.placement,
  about: 'project prefix uniqueness guard',
  attributes: {
    projectId: attribute.number('project_id'),
  },
});

/** A stored project as read, before it is decoded (`projectItem`'s attributes under their stored names). */
export type ProjectItem = Stored<typeof projectItem.attributes>;

/**
 * Writes that move or drop the prefix guard are conditioned on the prefix they read; a concurrent
 * prefix change fails that condition (`STALE`), and they read again (`rereadOnStale`).
 */

/** What an export file gives a project it brings (lib/services/import-export/import-export.ts) beyond its create fields. */
export interface RestoredProject {
  created_at: string;
  updated_at: string;
  github_repo_owner: string | null;
  github_repo_name: string | null;
  /**
   * The last issue number handed out there: numbers up to it are never given to a new issue, but
   * kept for the keys of `source` (the file's issues keep theirs: lib/db/imports/imports.ts, `reservedNumbers`).
   */
  lastIssueNumber: number;
  source: string;
  /** Its workflow's states as they were (ids kept: a state's id is its project's own); none: the defaults. */
  states?: WorkflowState[] | undefined;
}

/** The last issue number a project has handed out (its own issues' and those an import kept), from its stored item. */
export const lastIssueNumber = (project: Record<string, unknown>): number => projectItem.field(project, 'issueSeq');

export async function getProjectItem(orgId: number, projectId: number): Promise<ProjectItem | undefined> {
  return getItem<ProjectItem>(keys.project(orgId, projectId));
}

/**
 * Creates a project: project, prefix guard and the organisation's project count in one transaction.
 * Its id and its first block of issue ids come from one ADD on the organisation's sequences.
 */
export async function insertProject(orgId: number, input: ProjectCreate, restored?: RestoredProject): Promise<Project> {
  const reserved = await advance(orgId, { project: 1, issue: ISSUE_ID_BLOCK });
  const id = reserved.project;
  const ids = issueIdBlock(reserved.issue);
  const now = new Date().toISOString();
  const project: Project = {
    id,
    name: input.name,
    prefix: input.prefix,
    description: input.description ?? null,
    documentation_url: input.documentation_url ?? null,
    production_url: input.production_url ?? null,
    github_repo_owner: restored?.github_repo_owner ?? null,
    github_repo_name: restored?.github_repo_name ?? null,
    sprints_count: 0,
    created_at: restored?.created_at ?? now,
    updated_at: restored?.updated_at ?? now,
  };
  // One state per category, named after it (docs/workflows.md), in the same transaction.
  const workflow = newWorkflow(orgId, id, restored?.states ?? defaultStates(project.created_at));
  await transact([
    // A fresh id from the sequence: never taken.
    putNew({
      ...keys.project(orgId, id),
      LSK: listKeys.project(id),
      type: projectItem.type,
      ...project,
      ...projectItem.encode({
        orgId,
        backlogCount: 0,
        issueSeq: restored?.lastIssueNumber ?? 0,
        positionSeq: 0,
        issueIdNext: ids.next,
        issueIdEnd: ids.end,
      }),
      ...workflow.attributes,
    }),
    ...workflow.items,
    prefixGuardPut(orgId, input.prefix, id),
    addTo(keys.org(orgId), organisationCounter.projects, 1, projectRefusals.organisation),
    ...(restored && restored.lastIssueNumber > 0
      ? [reservedNumbersPut(orgId, id, restored.source, restored.lastIssueNumber)]
      : []),
  ]);
  return withVersion(project, { ...keys.project(orgId, id), version: 1 });
}

const prefixGuardPut = (orgId: number, prefix: string, projectId: number): GuardedItem =>
  putNew({ ...keys.prefix(orgId, prefix), ...prefixGuardItem.encode({ projectId }) }, projectRefusals.prefixTaken);

/** The project's fields an update sets: those sent, and its time. */
const sentChanges = (changes: ProjectUpdate, now: string): Partial<Fields<typeof projectItem.attributes>> => ({
  updatedAt: now,
  ...sentFields({
    name: changes.name,
    prefix: changes.prefix,
    description: changes.description,
    documentationUrl: changes.documentation_url,
    productionUrl: changes.production_url,
  }),
});

/**
 * Applies a partial update. Only the fields sent are written (SET per field), so concurrent
 * updates of different fields never undo each other. A prefix change also moves the prefix guard,
 * in the same transaction.
 */
export async function updateProject(orgId: number, projectId: number, changes: ProjectUpdate): Promise<object> {
  const now = new Date().toISOString();
  const set = sentChanges(changes, now);
  if (changes.prefix === undefined) {
    const update = projectItem.update({ set, if: { exists: true } });
    return updateResource({ Key: keys.project(orgId, projectId), ...update }, projectRefusals.project);
  }
  const withPrefix = { ...changes, prefix: changes.prefix };
  return rereadOnStale(() => changePrefix(orgId, projectId, withPrefix, set, now));
}

/** One attempt at an update that sets the prefix; refused as `STALE` when the prefix changed since the read. */
async function changePrefix(
  orgId: number,
  projectId: number,
  changes: ProjectUpdate & { prefix: string },
  set: Partial<Fields<typeof projectItem.attributes>>,
  now: string,
): Promise<object> {
  const current = await getProjectItem(orgId, projectId);
  if (!current) throw new Refused(projectRefusals.project);
  const change = { set, if: { exists: true, equals: { prefix: current.prefix } } };
  // Gone (404 on the next read) or its prefix changed since the read: read again.
  const items: GuardedItem[] = [{ ...projectItem.updateAt(keys.project(orgId, projectId), change, STALE), resource: true }];
  if (changes.prefix !== current.prefix) {
    items.push(prefixGuardPut(orgId, changes.prefix, projectId));
    items.push({ item: { Delete: { TableName: tableName(), Key: keys.prefix(orgId, current.prefix) } } });
  }
  await transact(items);
  const merged = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  return { ...current, ...merged, updated_at: now, version: versionOf(current) + 1 };
}

/**
 * Deletes a project in one transaction (project, prefix guard, organisation count, the delete's
 * marker: who deleted it, lib/db/core/deletions.ts). Its sprints,
 * issues and comments are unreachable at once (reads check the project) and are removed by the
 * cascade consumer from the table's stream.
 */
export async function deleteProject(orgId: number, projectId: number, deletedBy: number): Promise<void> {
  await rereadOnStale(() => deleteOnce(orgId, projectId, deletedBy));
}

/**
 * One attempt at a delete, into the organisation's trash (docs/trash.md): the project (only while
 * its prefix is as read), its prefix guard, the organisation's `projects_count`, the delete's
 * marker and the trash item, `withdrawing`, in one transaction. Its sprints, issues and everything
 * under them stay in its partition, unreachable at once (every read checks the project); the
 * cascade consumer takes its issues out of what is kept of them outside it
 * (lib/jobs/container-trash.ts). The organisation is read with the project (one BatchGetItem): its
 * trash retention. Refused as `STALE` when the project's prefix changed since the read.
 */
async function deleteOnce(orgId: number, projectId: number, deletedBy: number): Promise<void> {
  const [current, org] = (await batchGet([keys.project(orgId, projectId), keys.org(orgId)])) as [
    ProjectItem | undefined,
    Record<string, unknown> | undefined,
  ];
  if (!current) throw new Refused(projectRefusals.project);
  await transact([
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.project(orgId, projectId),
          // The guard deleted below must be the project's current one, or it would outlive it.
          ConditionExpression: 'attribute_exists(PK) AND prefix = :prefix',
          ExpressionAttributeValues: { ':prefix': current.prefix },
        },
      },
      // Gone (404 on the next read) or its prefix changed since the read: read again.
      reason: STALE,
      resource: true,
    },
    { item: { Delete: { TableName: tableName(), Key: keys.prefix(orgId, current.prefix) } } },
    addTo(keys.org(orgId), organisationCounter.projects, -1),
    ...deletionMarker(keys.project(orgId, projectId)),
    trashPut(
      orgId,
      'project',
      current as unknown as Record<string, unknown>,
      trashTitle(`${current.prefix} ${current.name}`),
      deletedBy,
      trashRetentionOf(organisationOf(org)),
      'withdrawing',
    ),
  ]);
}

/** A page of the organisation's projects, read with the organisation (its `projects_count`). */
export async function listProjects(orgId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.projects(orgId), page, [keys.org(orgId)]);
  return { page: result, org: organisationOf(related[0]) };
}

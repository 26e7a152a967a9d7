import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { quietIssueUpdate } from './quiet-update.ts';
import type { IssueLabel, Label } from '../../schemas/labels.ts';
import { foldName, labelIdsIn, labelsShown, type Catalogue, type CatalogueEntry } from '../../model/labels.ts';
import { labelLimits } from '../../vocabulary/label-limits.ts';
import { db, tableName } from '../core/client.ts';
import { deletionMarker } from '../core/deletions.ts';
import { collections, keys, listKeys, projectPk, type Key } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import { projectItem } from '../projects/projects.ts';
import { issueItem } from './issue-item.ts';
import { attribute, itemKind } from '../core/item.ts';
import { nextId } from '../core/sequences.ts';
import { batchGet, putNew, sentFields, transact, type GuardedItem } from '../core/transactions.ts';
import { organisationOf, trashRetentionOf, type OrganisationFields } from '../organisation/organisation.ts';
import { goneForGood, trashedLabelKey, trashPut, trashRemoval } from '../core/trash.ts';
import { VERSION_ATTRIBUTE, versionOf, withVersion } from '../core/versions.ts';

/**
 * A project's label catalogue. Each label is an item of the project's partition (`LABEL#l`, listed
 * on LSI1), with a guard item per case-folded name (`LABELNAME#n`) that makes names unique in the
 * project. The catalogue is also kept on the project item, one attribute per label
 * (`L#<id>: [name, color]`, with `labels_count`), written in the same transaction as the label:
 * every issue read already reads the project item with the issue (its ancestor check), so showing
 * an issue's labels in their current spelling costs no DynamoDB call, and a rename or recolour is
 * one write that every issue shows at once. An issue stores only the ids (`label_ids`, a number set).
 *
 * Refusal reasons: `label` (gone, or changed since it was read), `name_taken`, `project` (gone or
 * full: the caller tells them apart), `trashed` (a restore's trash item gone).
 */

/** The name of the project attribute that holds label `id`'s catalogue entry. */
const entryAttribute = (labelId: number) => `L#${labelId}`;
const ENTRY = /^L#(\d+)$/;

/** A label as the catalogue on the project item holds it, and the catalogue: label id -> current name and colour (lib/model/labels.ts). */
export type { Catalogue, CatalogueEntry };

/** The catalogue kept on a project item (empty for a project without labels, or none). */
export function catalogueOf(project: object | undefined): Catalogue {
  const catalogue = new Map<number, CatalogueEntry>();
  if (!project) return catalogue;
  for (const [attribute, value] of Object.entries(project)) {
    const m = ENTRY.exec(attribute);
    if (!m || !Array.isArray(value)) continue;
    catalogue.set(Number(m[1]), { name: String(value[0]), color: String(value[1]) });
  }
  return catalogue;
}

/** The case-folded form of a name, under which names are unique in a project (lib/model/labels.ts). */
export { foldName };

/**
 * The label item, declared once (lib/db/core/item.ts): what its answer shows, in its project's
 * partition, listed on LSI1 in id order. The catalogue entry on the project and the name guard
 * (`labelNameItem`) are written with it.
 */
export const labelItem = itemKind({
  type: 'label',
  key: { ...keys.label.placement, LSK: listKeys.label.placement },
  about: "label of the project's catalogue",
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    name: attribute.string('name'),
    color: attribute.string('color'),
    description: attribute.nullableString('description'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});

/** A stored label as read, before it is decoded (`toLabel`, `labelItem.decode`). */
export type LabelItem = Record<string, unknown>;

/**
 * The guard of a label's name (its case-folded form, `foldName`) in its project: written with the
 * label and with each rename, so that a second label of the name is refused `name_taken`.
 */
export const labelNameItem = itemKind({
  key: keys.labelName.placement,
  about: 'label name uniqueness guard (case-folded name)',
  attributes: {
    labelId: attribute.number('label_id'),
  },
});

/** The label and its project, in one consistent BatchGet (the ancestor check of every label route). */
export async function getLabelFamily(orgId: number, projectId: number, labelId: number) {
  const [project, label] = await batchGet([keys.project(orgId, projectId), keys.label(orgId, projectId, labelId)]);
  return { project, label };
}

/**
 * A label with its project and its organisation, in one consistent BatchGetItem: what its delete
 * reads (the organisation's trash retention: `trashRetentionOf`), at no call more than `getLabelFamily`.
 */
export async function getLabelFamilyWithOrganisation(orgId: number, projectId: number, labelId: number) {
  const [project, label, org] = await batchGet([
    keys.project(orgId, projectId),
    keys.label(orgId, projectId, labelId),
    keys.org(orgId),
  ]);
  return { project, label, org: organisationOf(org) };
}

/** A page of a project's labels in id order, with how many the project has (its `labelsCount`; undefined if it is gone). */
export async function listLabels(orgId: number, projectId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.labels(orgId, projectId), page, [
    keys.project(orgId, projectId),
  ]);
  const project = related[0];
  return { page: result, total: project && projectItem.field(project, 'labelsCount') };
}

/** The Update of the project item that writes (or, `entry` undefined, removes) a label's catalogue entry. */
function catalogueWrite(orgId: number, projectId: number, labelId: number, entry: CatalogueEntry | undefined, count: number) {
  const names: Record<string, string> = { '#entry': entryAttribute(labelId) };
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  if (entry) {
    values[':entry'] = [entry.name, entry.color];
    clauses.push('SET #entry = :entry');
  } else clauses.push('REMOVE #entry');
  let condition = 'attribute_exists(PK)';
  if (count !== 0) {
    names['#count'] = projectItem.stored('labelsCount');
    values[':count'] = count;
    clauses.push('ADD #count :count');
    if (count > 0) {
      values[':max'] = labelLimits.perProject;
      condition += ' AND (attribute_not_exists(#count) OR #count < :max)';
    }
  }
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        UpdateExpression: clauses.join(' '),
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      },
    },
    reason: 'project',
  } satisfies GuardedItem;
}

const nameGuard = (orgId: number, projectId: number, name: string, labelId: number): GuardedItem =>
  putNew({ ...keys.labelName(orgId, projectId, foldName(name)), ...labelNameItem.encode({ labelId }) }, 'name_taken');

const dropNameGuard = (orgId: number, projectId: number, name: string): GuardedItem => ({
  item: { Delete: { TableName: tableName(), Key: keys.labelName(orgId, projectId, foldName(name)) } },
});

/**
 * Creates a label: the label, its name guard, and its entry in the catalogue on the project with
 * `labels_count` (conditioned on the project's existence and on fewer than 200 labels), in one
 * transaction. Refusals: `name_taken`, `project` (gone or full).
 */
export async function insertLabel(
  orgId: number,
  projectId: number,
  fields: { name: string; color: string; description: string | null },
  /** An export file's label (lib/services/import-export/import-export.ts): its own times. */
  times?: { created_at: string; updated_at: string },
): Promise<Label> {
  const id = await nextId(orgId, 'label');
  const now = new Date().toISOString();
  const label: Label = {
    id,
    project_id: projectId,
    ...fields,
    created_at: times?.created_at ?? now,
    updated_at: times?.updated_at ?? now,
  };
  const key = keys.label(orgId, projectId, id);
  await transact([
    putNew(
      {
        ...key,
        LSK: listKeys.label(id),
        type: labelItem.type,
        ...labelItem.encode({
          id,
          orgId,
          projectId,
          name: label.name,
          color: label.color,
          description: label.description,
          createdAt: label.created_at,
          updatedAt: label.updated_at,
        }),
      },
      'label',
    ),
    nameGuard(orgId, projectId, fields.name, id),
    catalogueWrite(orgId, projectId, id, { name: fields.name, color: fields.color }, 1),
  ]);
  return withVersion(label, { ...key, version: 1 });
}

/**
 * Writes the changed fields of a label read as `current`: the label (conditioned on the name it was
 * read with, so that the guards moved here are its current ones), a renamed label's guards (the
 * new name's refused as `name_taken`), and the catalogue entry on the project when the name or the
 * colour changed, in one transaction. No issue is written: they show the catalogue's spelling.
 */
export async function updateLabel(
  orgId: number,
  projectId: number,
  stored: LabelItem,
  changes: { name?: string | undefined; color?: string | undefined; description?: string | null | undefined },
): Promise<object> {
  const current = labelItem.decode(stored);
  const now = new Date().toISOString();
  const set = {
    updatedAt: now,
    ...sentFields({ name: changes.name, color: changes.color, description: changes.description }),
  };
  const key = keys.label(orgId, projectId, current.id);
  const items: GuardedItem[] = [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: key,
          ...labelItem.update({ set, if: { exists: true, equals: { name: current.name } } }),
        },
      },
      reason: 'label',
      resource: true,
    },
  ];
  const name = changes.name ?? current.name;
  const color = changes.color ?? current.color;
  if (foldName(name) !== foldName(current.name)) {
    items.push(nameGuard(orgId, projectId, name, current.id), dropNameGuard(orgId, projectId, current.name));
  }
  if (name !== current.name || color !== current.color) {
    items.push(catalogueWrite(orgId, projectId, current.id, { name, color }, 0));
  }
  await transact(items);
  return {
    ...stored,
    ...labelItem.encode({ ...changes, updatedAt: now }),
    [VERSION_ATTRIBUTE]: versionOf(stored) + 1,
  };
}

/**
 * Moves a label into the organisation's trash (docs/trash.md) in one transaction: the label's
 * delete (conditioned on the name and version it was read with, so that the trash holds it as it
 * was), its name guard, its catalogue entry and `labels_count` on the project, the trash item (the
 * label whole) and the delete's marker. From then on no issue shows it (issues show only what the
 * catalogue holds) and no filter matches it. Its issues keep its id while it is in the trash, so
 * that a restore shows it on them again at once; its purge (or expiry) takes the id off them
 * (the cascade's `removeDeletedLabel`, lib/jobs/cascade.ts). Refusals: `label`, `project`.
 */
export async function trashLabel(
  orgId: number,
  projectId: number,
  stored: LabelItem,
  deletedBy: number,
  /** The organisation as read with the label (its trash retention). */
  org: OrganisationFields | undefined,
): Promise<void> {
  const current = labelItem.decode(stored);
  const key = keys.label(orgId, projectId, current.id);
  const version = stored[VERSION_ATTRIBUTE];
  await transact([
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: key,
          ConditionExpression: `attribute_exists(PK) AND #name = :name AND ${version === undefined ? 'attribute_not_exists(#v)' : '#v = :v'}`,
          ExpressionAttributeNames: { '#name': labelItem.stored('name'), '#v': VERSION_ATTRIBUTE },
          ExpressionAttributeValues: { ':name': current.name, ...(version === undefined ? {} : { ':v': version }) },
        },
      },
      reason: 'label',
      resource: true,
    },
    dropNameGuard(orgId, projectId, current.name),
    catalogueWrite(orgId, projectId, current.id, undefined, -1),
    trashPut(orgId, 'label', stored, current.name, deletedBy, trashRetentionOf(org)),
    ...deletionMarker(key),
  ]);
}

/**
 * Brings a trashed label back (`stored`: the label as it was stored) in one transaction: the label
 * with its id, name, colour and version, its name guard, its catalogue entry and `labels_count`
 * (within the limit of 200) on the project, and the trash item's delete. Every issue that kept its
 * id shows it again at once. Refusals: `label` (there again), `name_taken` (a label of that name
 * was made meanwhile), `project` (gone or full), `trashed` (restored or purged meanwhile).
 */
export async function restoreLabel(orgId: number, stored: LabelItem, deletedAt: string): Promise<void> {
  const label = labelItem.decode(stored);
  await transact([
    putNew(stored, 'label'),
    nameGuard(orgId, label.projectId, label.name, label.id),
    catalogueWrite(orgId, label.projectId, label.id, { name: label.name, color: label.color }, 1),
    ...trashRemoval(orgId, String(stored.SK), deletedAt, 'restored'),
  ]);
}

/**
 * Whether label `labelId` is still to be taken off its issues: gone from its project and not in
 * the trash (where its issues keep its id for a restore). One TransactGetItems reads both, so a
 * restore (which writes the label and deletes the trash item at once) is never seen half done.
 */
export async function labelIsPurged(orgId: number, projectId: number, labelId: number): Promise<boolean> {
  return goneForGood(keys.label(orgId, projectId, labelId), trashedLabelKey(orgId, labelId));
}

/** Issues of the project one cascade step reads (and updates the carriers among) at most. */
const CASCADE_PAGE = 250;

/**
 * One page of the issues of list `list` (LSI1 `S#`: the sprints', `B#`: the backlog's) that carry
 * label `labelId`, from `start` on: their keys, and where the next page starts (undefined: the
 * list's end). The cascade of a label's purge (lib/jobs/cascade.ts) pages them.
 */
export async function labelCarriers(
  orgId: number,
  projectId: number,
  labelId: number,
  list: 'S#' | 'B#',
  start: Record<string, unknown> | undefined,
): Promise<{ carriers: Key[]; next: Record<string, unknown> | undefined }> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: 'contains(#labels, :label)',
      ExpressionAttributeNames: { '#labels': issueItem.stored('labelIds') },
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': list, ':label': labelId },
      ProjectionExpression: 'PK, SK, LSK',
      ConsistentRead: true,
      Limit: CASCADE_PAGE,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    carriers: (out.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) })),
    next: out.LastEvaluatedKey,
  };
}

/**
 * Takes label `labelId` off one issue that carries it: one UpdateItem (`DELETE label_ids`, on
 * condition that the issue is still there), with its search record's in the same transaction.
 * Nothing else of the issue changes: no revision, no `updated_at`. Running it twice is harmless.
 */
export async function takeLabelOff(key: Key, labelId: number): Promise<void> {
  await quietIssueUpdate(key, issueItem.update({ delete: { labelIds: new Set([labelId]) }, if: { exists: true } }));
}

/** An issue's labels as answered: the ids it stores that the catalogue holds, in the catalogue's spelling, by name. */
export function issueLabels(labelIds: unknown, catalogue: Catalogue): IssueLabel[] {
  return labelsShown(storedLabelIds(labelIds), catalogue);
}

/** The label ids stored on an issue (`label_ids`: a number set, absent when it has none). */
export function storedLabelIds(labelIds: unknown): number[] {
  if (labelIds instanceof Set || Array.isArray(labelIds)) return [...(labelIds as Iterable<unknown>)].map(Number);
  return [];
}

/**
 * The ids of the labels an issue write names (ids or names, any case) in the project's catalogue;
 * 422 naming every one the catalogue does not hold. The same label twice counts once.
 */
export function resolveLabels(project: object, refs: (number | string)[]): number[] {
  return labelIdsIn(catalogueOf(project), refs);
}

/**
 * The ids a `labels` filter (names, any case) stands for in a project's catalogue; undefined when
 * one of the names is no label of it: then no issue matches (an empty page, not an error).
 */
export function labelFilterIds(project: object | undefined, names: string[]): number[] | undefined {
  const catalogue = catalogueOf(project);
  const byName = new Map([...catalogue].map(([id, entry]) => [foldName(entry.name), id]));
  const ids: number[] = [];
  for (const name of names) {
    const id = byName.get(foldName(name));
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}

/** True when an issue's stored labels hold every id of `wanted` (undefined: a filter that matches nothing). */
export function carriesAll(issue: object, wanted: number[] | undefined): boolean {
  if (wanted === undefined) return false;
  const held = new Set(issueItem.field(issue, 'labelIds'));
  return wanted.every((id) => held.has(id));
}

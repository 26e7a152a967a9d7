import type { FieldDefinition, FieldOption } from '../../model/custom-fields.ts';
import type { FieldsChange, FieldsRead } from '../../model/custom-field-plans.ts';

export type { FieldsChange, FieldsRead };
import { fieldTypes, type FieldType } from '../../vocabulary/custom-fields.ts';
import { tableName } from '../core/client.ts';
import { keys } from '../core/keys.ts';
import { expectationHolds, itemOf } from '../core/versions.ts';
import { answeredWith } from '../../model/versions.ts';
import type { GuardedItem } from '../core/transactions.ts';
import { projectItem } from './projects.ts';

/**
 * A project's custom fields (docs/custom-fields.md). Their definitions are kept on the project
 * item, one attribute per field (`CF#<id>`: a map), beside the label catalogue: every issue read
 * already reads the project item (its ancestor check), so an issue shows its values by key, with
 * its options' current names, at no DynamoDB call more. Every change of the definitions is one
 * UpdateItem of the project conditioned on `fields_rev` as read (and bumping it), so names and keys
 * stay unique in the project without guard items; field and option ids come from `field_seq`.
 * A field deleted, or options of it, start a pending cascade in the same transaction
 * (lib/db/cascades/field-values.ts): it takes the values off the issues that hold them.
 *
 * Refusals: `fields` (the definitions changed since they were read, or the project is gone: the
 * caller reads again and tells).
 */

const entryAttribute = (fieldId: number) => `CF#${fieldId}`;
const ENTRY = /^CF#(\d+)$/;

/** A field as stored on the project item (snake_case, like every stored map). */
interface StoredField {
  key: string;
  name: string;
  type: string;
  description?: string | null;
  required?: boolean;
  options?: { id: number; name: string; color: string }[];
  version?: number;
  created_at: string;
  updated_at: string;
}

const storedField = (f: FieldDefinition): StoredField => ({
  key: f.key,
  name: f.name,
  type: f.type,
  description: f.description,
  required: f.required,
  options: f.options.map((o) => ({ id: o.id, name: o.name, color: o.color })),
  version: f.version,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

function fieldFromStored(id: number, v: StoredField): FieldDefinition | undefined {
  if (!(fieldTypes as readonly string[]).includes(v.type)) return undefined;
  return {
    id,
    key: String(v.key),
    name: String(v.name),
    type: v.type as FieldType,
    description: typeof v.description === 'string' ? v.description : null,
    required: v.required === true,
    options: (v.options ?? []).map((o): FieldOption => ({ id: Number(o.id), name: String(o.name), color: String(o.color) })),
    version: Number(v.version ?? 1),
    createdAt: String(v.created_at),
    updatedAt: String(v.updated_at),
  };
}

/** A field's name for its ETag: its project item's, and its attribute there. */
const fieldItem = (orgId: number, projectId: number, fieldId: number) =>
  `${itemOf(keys.project(orgId, projectId))}\u0000${entryAttribute(fieldId)}`;

/** A field's answer with its version (its ETag, lib/http/conditional.ts). */
export const withFieldVersion = <T extends object>(answer: T, orgId: number, projectId: number, field: FieldDefinition): T =>
  answeredWith(answer, { version: field.version, item: fieldItem(orgId, projectId, field.id) });

/** Whether the request's `If-Match` (or `expected_version`) names the field as read: a change of it is refused 412 otherwise. */
export const fieldExpectationHolds = (orgId: number, projectId: number, field: FieldDefinition): boolean =>
  expectationHolds(fieldItem(orgId, projectId, field.id), field.version);

/** The custom fields kept on a project item, in id order (none for a project without any, or none). */
export function fieldsOf(project: object | undefined): FieldDefinition[] {
  if (!project) return [];
  const fields: FieldDefinition[] = [];
  for (const [attribute, value] of Object.entries(project)) {
    const m = ENTRY.exec(attribute);
    if (!m || value === null || typeof value !== 'object') continue;
    const field = fieldFromStored(Number(m[1]), value as StoredField);
    if (field) fields.push(field);
  }
  return fields.sort((a, b) => a.id - b.id);
}

/** The definitions of a project item as a change of them reads them. */
export const fieldsRead = (project: object): FieldsRead => ({
  fields: fieldsOf(project),
  rev: projectItem.field(project, 'fieldsRev'),
  seq: projectItem.field(project, 'fieldSeq'),
});

/**
 * The update of the project item that writes a change of its definitions, on condition that they
 * are still as `read` (its `fields_rev`). Refused `fields` when they changed since, or the project is gone.
 */
export function fieldsUpdate(orgId: number, projectId: number, read: FieldsRead, change: FieldsChange): GuardedItem {
  const names: Record<string, string> = { '#rev': projectItem.stored('fieldsRev'), '#seq': projectItem.stored('fieldSeq') };
  const values: Record<string, unknown> = { ':next': read.rev + 1, ':seq': change.seq };
  const sets = ['#rev = :next', '#seq = :seq'];
  for (const field of change.put ?? []) {
    names[`#f${field.id}`] = entryAttribute(field.id);
    values[`:f${field.id}`] = storedField(field);
    sets.push(`#f${field.id} = :f${field.id}`);
  }
  const removes = (change.remove ?? []).map((id) => {
    names[`#f${id}`] = entryAttribute(id);
    return `#f${id}`;
  });
  if (read.rev > 0) values[':rev'] = read.rev;
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: `attribute_exists(PK) AND ${read.rev > 0 ? '#rev = :rev' : 'attribute_not_exists(#rev)'}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    reason: 'fields',
  };
}

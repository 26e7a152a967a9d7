import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredValue } from '../../model/custom-fields.ts';
import { db, tableName } from '../core/client.ts';
import { projectPk, type Key } from '../core/keys.ts';
import { transact, type GuardedItem } from '../core/transactions.ts';
import { issueItem } from '../issues/issue-item.ts';
import { quietIssueUpdate } from '../issues/quiet-update.ts';
import { fieldsUpdate, type FieldsChange, type FieldsRead } from '../projects/custom-fields.ts';
import { pendingCascadeRecord } from './cascade-records.ts';

/**
 * The values of a project's custom fields beyond a single issue write (docs/custom-fields.md): a
 * change of the definitions with the cascades it starts, and the steps of those cascades (the
 * issues holding a field's value, a page at a time, and each one's value settled).
 */

/**
 * Writes a change of a project's definitions (lib/db/projects/custom-fields.ts: `fieldsUpdate`)
 * with a pending cascade per field whose values settle, in one transaction: the cascade consumer
 * takes it from there (lib/jobs/cascade.ts). Refused `fields` when they changed since they were
 * read, or the project is gone.
 */
export async function writeFields(orgId: number, projectId: number, read: FieldsRead, change: FieldsChange): Promise<void> {
  const cascades = (change.settle ?? []).map((fieldId): GuardedItem => ({
    item: {
      Put: {
        TableName: tableName(),
        Item: pendingCascadeRecord({ parent: { kind: 'field', orgId, projectId, fieldId }, attempts: 0, status: 'pending' }),
      },
    },
  }));
  await transact([fieldsUpdate(orgId, projectId, read, change), ...cascades]);
}

/** Issues of the project one step of a field's cascade reads (and settles the holders among) at most. */
const CASCADE_PAGE = 250;

const valuesName = { '#values': issueItem.stored('customFields') };

/**
 * One page of the issues of list `list` (LSI1 `S#`: the sprints', `B#`: the backlog's) that hold
 * a value of field `fieldId`, from `start` on: their keys with the value, and where the next page
 * starts (undefined: the list's end).
 */
export async function fieldHolders(
  orgId: number,
  projectId: number,
  fieldId: number,
  list: 'S#' | 'B#',
  start: Record<string, unknown> | undefined,
): Promise<{ holders: { key: Key; value: StoredValue }[]; next: Record<string, unknown> | undefined }> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: 'attribute_exists(#values.#field)',
      ExpressionAttributeNames: { ...valuesName, '#field': String(fieldId) },
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': list },
      ProjectionExpression: 'PK, SK, LSK, #values.#field',
      ConsistentRead: true,
      Limit: CASCADE_PAGE,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return {
    holders: (out.Items ?? []).map((item) => ({
      key: { PK: String(item.PK), SK: String(item.SK) },
      value: issueItem.field(item, 'customFields')[String(fieldId)] as StoredValue,
    })),
    next: out.LastEvaluatedKey,
  };
}

/**
 * Settles one issue's value of field `fieldId` (with its search record's): `value` written, or
 * (undefined) taken off. Nothing else of the issue changes; an issue gone meanwhile needs nothing.
 */
export async function settleFieldValue(key: Key, fieldId: number, value: StoredValue | undefined): Promise<void> {
  const names = { ...valuesName, '#field': String(fieldId) };
  await quietIssueUpdate(key, {
    UpdateExpression: value === undefined ? 'REMOVE #values.#field' : 'SET #values.#field = :value',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: names,
    ...(value === undefined ? {} : { ExpressionAttributeValues: { ':value': value } }),
  });
}

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

export type SequenceName = 'account' | 'project' | 'sprint' | 'issue' | 'comment' | 'webhook' | 'label' | 'attachment';

/**
 * Issue ids are handed to each project in blocks of this many, reserved from the organisation's
 * `issue` sequence: creating an issue then takes its id from the project item in the same UpdateItem
 * that takes its number (lib/db/issues.ts, `allocateIssueSlot`), and only one create in a block
 * pays the reservation.
 */
export const ISSUE_ID_BLOCK = 32;

/** A block of ids `[next, end)` reserved for one project. */
export interface IdBlock {
  next: number;
  end: number;
}

/**
 * Advances several per-organisation sequences in one atomic ADD and returns their new values, the
 * last number each step reserved. A number is never handed out twice, even if the write that
 * wanted it then fails (a gap, never a reuse).
 */
export async function advance<N extends SequenceName>(orgId: number, steps: Record<N, number>): Promise<Record<N, number>> {
  const names = Object.keys(steps) as N[];
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sequences(orgId),
      UpdateExpression: `ADD ${names.map((_, i) => `#n${i} :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, steps[name]])),
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Object.fromEntries(names.map((name) => [name, Number(out.Attributes?.[name])])) as Record<N, number>;
}

/** Next integer id of a per-organisation sequence: one atomic ADD. */
export async function nextId(orgId: number, name: SequenceName): Promise<number> {
  return (await advance(orgId, { [name]: 1 } as Record<SequenceName, number>))[name];
}

/** The block of issue ids that ends at `last`, the value a reservation of `ISSUE_ID_BLOCK` returned. */
export const issueIdBlock = (last: number): IdBlock => ({ next: last - ISSUE_ID_BLOCK + 1, end: last + 1 });

/** Next organisation id (organisations are global, so their sequence is too). */
export async function nextOrgId(): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.orgSequence(),
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'organisation' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.organisation);
}

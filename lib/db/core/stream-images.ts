import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { trashMarkerKey } from './keys.ts';

/**
 * The item a DynamoDB stream record's image holds (`NewImage`, `OldImage`: DynamoDB's wire format),
 * as the document client would read it. The stream consumers above the data layer read their
 * records through it, so that only lib/db speaks the wire format.
 */
/** The key of the item a REMOVE record deleted (where its delete marker is found), if it is one. */
export function deletedKeyOf(record: DynamoDBRecord): { PK: string; SK: string } | undefined {
  const old = record.eventName === 'REMOVE' && record.dynamodb?.OldImage ? itemOfImage(record.dynamodb.OldImage) : undefined;
  if (typeof old?.PK !== 'string' || typeof old.SK !== 'string') return undefined;
  const key = { PK: old.PK, SK: old.SK };
  // A trash item's key comes back with each delete of its item: its marker is that delete's (lib/db/core/trash.ts).
  return old.type === 'trash' && typeof old.deleted_at === 'string' ? trashMarkerKey(key, old.deleted_at) : key;
}

/** The organisation a stored item belongs to (`org_id`, which every item of an organisation carries), if it says. */
export function orgOfItem(item: Record<string, unknown>): number | undefined {
  const orgId = item.org_id;
  return typeof orgId === 'number' && Number.isSafeInteger(orgId) ? orgId : undefined;
}

export function itemOfImage(image: Record<string, AttributeValue>): Record<string, unknown> {
  return unmarshall(image as Parameters<typeof unmarshall>[0]);
}

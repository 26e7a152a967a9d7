import type { AttributeValue } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The item a DynamoDB stream record's image holds (`NewImage`, `OldImage`: DynamoDB's wire format),
 * as the document client would read it. The stream consumers above the data layer read their
 * records through it, so that only lib/db speaks the wire format.
 */
export function itemOfImage(image: Record<string, AttributeValue>): Record<string, unknown> {
  return unmarshall(image as Parameters<typeof unmarshall>[0]);
}

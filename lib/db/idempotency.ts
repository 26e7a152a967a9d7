import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { JSONValue } from '@aws-lambda-powertools/commons/types';
import { dynamodb, tableName } from './client.ts';
import { keys, type Key } from './keys.ts';
import { tableDefinition } from './table.ts';

/**
 * Powertools' DynamoDB persistence layer, in the service's one table. Its composite-key mode would
 * put every record under one static partition key; `getKey` spreads them instead, one partition per
 * record (`keys.idempotency`), so no partition runs hot and no item collection grows without bound.
 */
export class TablePersistenceLayer extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    return marshall(keys.idempotency(idempotencyKey));
  }

  /** The table key of the record a request maps to (operations and tests: find or expire a record). */
  recordKey(event: JSONValue): Key {
    return keys.idempotency(this.getHashedIdempotencyKey(event));
  }
}

/**
 * A store for one idempotent handler (Powertools configures a store once, with one configuration):
 * records live in the service's table and expire through its TTL attribute.
 */
export function idempotencyStore(): TablePersistenceLayer {
  return new TablePersistenceLayer({
    tableName,
    awsSdkV3Client: dynamodb,
    keyAttr: tableDefinition.partitionKey,
    sortKeyAttr: tableDefinition.sortKey,
    expiryAttr: tableDefinition.ttlAttribute,
    inProgressExpiryAttr: 'in_progress_expires_at',
    statusAttr: 'status',
    dataAttr: 'response',
    validationKeyAttr: 'request_hash',
  });
}

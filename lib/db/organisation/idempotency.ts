import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { JSONValue } from '@aws-lambda-powertools/commons/types';
import { db, dynamodb, tableName } from '../core/client.ts';
import { attribute, itemKind, type Attribute } from '../core/item.ts';
import { keys, skPrefixes, type Key } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { tableDefinition } from '../core/table.ts';

/** The table key of an idempotency record (`idempotencyRecordKey` in lib/http/idempotency.ts). */
export type IdempotencyRecordKey = Key;

/**
 * A stored response keeps its body inline up to this many bytes; a larger body (an issue whose
 * 100,000-character description JSON escapes to 200 KB, with the request's key and hashes beside
 * it) goes in parts beside the record, since one DynamoDB item holds at most 400 KB and a record
 * that cannot be saved would let a retry run twice.
 */
export const INLINE_BODY_BYTES = 128 * 1024;
/** Bytes per part item (binary, so a multi-byte character may straddle two parts). */
const PART_BYTES = 128 * 1024;
/** Marks a stored response whose body is in that many parts. */
const BODY_PARTS = 'body_parts';

/** A stored response: Powertools' copy of what the handler answered, its body inline or in parts. */
type StoredResponse = { body?: unknown; [BODY_PARTS]?: unknown } & Record<string, unknown>;

/**
 * An Idempotency-Key record, as Powertools writes it under the stored names this declaration gives
 * it (`idempotencyStore`): its status, the response it replays, the hash of the request it answers,
 * when it goes (TTL) and, while in progress, until when a retry is refused.
 */
export const idempotencyRecordItem = itemKind({
  key: keys.idempotency.placement,
  about: 'Idempotency-Key record (TTL `expires_at`)',
  attributes: {
    status: attribute.oneOf<'INPROGRESS' | 'COMPLETED' | 'EXPIRED'>('status'),
    response: attribute.whole<StoredResponse, 'response'>('response'),
    requestHash: attribute.nullableString('request_hash'),
    expiresAt: attribute.expiry(),
    /** Milliseconds since the epoch, as Powertools compares it. */
    inProgressExpiresAt: attribute.nullableNumber('in_progress_expires_at'),
  },
});

/** Bytes stored as they are (binary): a part of a body has them, or is no part. */
const bytes = <S extends string>(stored: S): Attribute<Uint8Array, S> => ({
  stored,
  read: (v) => {
    if (v instanceof Uint8Array) return v;
    throw new Error(`a stored part without its bytes (${stored})`);
  },
  write: (v) => v,
});

/** Part n of a response body too large for its record's item, in the record's partition. */
export const idempotencyPartItem = itemKind({
  key: keys.idempotencyPart.placement,
  about: 'part n of a large stored response (TTL)',
  attributes: {
    part: bytes('part'),
    expiresAt: attribute.expiry(),
  },
});

/**
 * Powertools' DynamoDB persistence layer, in the service's one table. Its composite-key mode would
 * put every record under one static partition key; `getKey` spreads them instead, one partition per
 * record (`keys.idempotency`), so no partition runs hot and no item collection grows without bound.
 *
 * A response body too large for the record's item is stored in parts, in the record's partition
 * (`keys.idempotencyPart`), written before the record is completed and read back with it, so a
 * replay is the whole response whatever its size.
 */
export class TablePersistenceLayer extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    return marshall(keys.idempotency(idempotencyKey));
  }

  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const response = record.responseData as StoredResponse | undefined;
    if (response && typeof response.body === 'string' && Buffer.byteLength(response.body) > INLINE_BODY_BYTES) {
      const body = Buffer.from(response.body, 'utf8');
      const count = Math.ceil(body.length / PART_BYTES);
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          db.send(
            new PutCommand({
              TableName: tableName(),
              Item: {
                ...keys.idempotencyPart(record.idempotencyKey, i),
                ...idempotencyPartItem.encode({
                  part: body.subarray(i * PART_BYTES, (i + 1) * PART_BYTES),
                  expiresAt: record.expiryTimestamp,
                }),
              },
            }),
          ),
        ),
      );
      record.responseData = { ...response, body: '', [BODY_PARTS]: count } as never;
      try {
        await super._updateRecord(record);
      } finally {
        record.responseData = response as never;
      }
      return;
    }
    await super._updateRecord(record);
  }

  protected override async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    return this.withBody(await super._getRecord(idempotencyKey));
  }

  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    try {
      await super._putRecord(record);
    } catch (err) {
      // A completed record met on the way in is replayed from the error's copy: whole it must be.
      const existing = (err as { existingRecord?: IdempotencyRecord }).existingRecord;
      if (existing) await this.withBody(existing);
      throw err;
    }
  }

  /** Puts a body stored in parts back into the record's response. */
  private async withBody(record: IdempotencyRecord): Promise<IdempotencyRecord> {
    const response = record.responseData as StoredResponse | undefined;
    const count = Number(response?.[BODY_PARTS] ?? 0);
    if (!response || count <= 0) return record;
    // A record read back names its key by the item's PK (`IDEMPOTENCY#<key>`), not the bare key.
    const pk = keys.idempotency('').PK;
    const bare = record.idempotencyKey.startsWith(pk) ? record.idempotencyKey.slice(pk.length) : record.idempotencyKey;
    const record0 = keys.idempotencyPart(bare, 0);
    const parts: Uint8Array[] = [];
    await queryPages(
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :part)',
        ExpressionAttributeValues: { ':pk': record0.PK, ':part': skPrefixes.idempotencyParts },
      },
      {},
      (page) => {
        for (const item of page) parts.push(idempotencyPartItem.field(item, 'part'));
      },
    );
    if (parts.length !== count)
      throw new Error(`idempotency record ${record.idempotencyKey}: ${parts.length} of ${count} parts found`);
    const { [BODY_PARTS]: _parts, ...rest } = response;
    record.responseData = { ...rest, body: Buffer.concat(parts).toString('utf8') } as never;
    return record;
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
    tableName: tableName(),
    awsSdkV3Client: dynamodb,
    keyAttr: tableDefinition.partitionKey,
    sortKeyAttr: tableDefinition.sortKey,
    expiryAttr: idempotencyRecordItem.stored('expiresAt'),
    inProgressExpiryAttr: idempotencyRecordItem.stored('inProgressExpiresAt'),
    statusAttr: idempotencyRecordItem.stored('status'),
    dataAttr: idempotencyRecordItem.stored('response'),
    validationKeyAttr: idempotencyRecordItem.stored('requestHash'),
  });
}

/**
 * Keeps a record that could not be completed in progress until it expires: a retry with its key
 * is then refused (409) rather than run a second time. One small update, without the response.
 */
export async function holdInProgress(record: Key): Promise<void> {
  await idempotencyRecordItem.updateNow(record, {
    // Powertools compares the in-progress expiry in milliseconds.
    set: { inProgressExpiresAt: Date.now() + IN_PROGRESS_HOLD_SECONDS * 1000 },
    if: { exists: true, equals: { status: 'INPROGRESS' } },
  });
}

/** How long a record that could not be completed refuses retries: as long as a key is remembered. */
const IN_PROGRESS_HOLD_SECONDS = 24 * 60 * 60;

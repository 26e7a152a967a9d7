import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../domain/errors.ts';
import { db, tableName } from './client.ts';
import type { Collection } from './keys.ts';

/** Which page of a collection to read: `page`/`per_page`, or the opaque cursor of a `next` link. */
export interface PageRequest {
  page: number;
  perPage: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the page after this one; absent on the last page. */
  nextCursor?: string | undefined;
}

interface CursorBody {
  PK: string;
  SK: string;
  LSK: string;
}

const encodeCursor = (key: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify({ PK: key.PK, SK: key.SK, LSK: key.LSK })).toString('base64url');

function decodeCursor(cursor: string, collection: Collection): CursorBody {
  try {
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
    if (
      body.PK === collection.pk &&
      typeof body.SK === 'string' &&
      typeof body.LSK === 'string' &&
      body.LSK.startsWith(collection.prefix)
    ) {
      return { PK: body.PK, SK: body.SK, LSK: body.LSK };
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError(['cursor is not valid for this collection']);
}

/**
 * Finds the key after which page `page` starts, reading only keys (LSI1Keys, KEYS_ONLY), so a deep
 * page never reads the items it skips. Returns undefined when the collection is shorter.
 */
async function startKeyOfPage(collection: Collection, skip: number): Promise<Record<string, unknown> | undefined> {
  let remaining = skip;
  let start: Record<string, unknown> | undefined;
  while (remaining > 0) {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'LSI1Keys',
        KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
        ConsistentRead: true,
        Limit: remaining,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const items = out.Items ?? [];
    remaining -= items.length;
    const last = items.at(-1);
    if (remaining === 0 && last) return { PK: last.PK, SK: last.SK, LSK: last.LSK };
    if (!out.LastEvaluatedKey) return undefined;
    start = out.LastEvaluatedKey;
  }
  return undefined;
}

/**
 * Reads one page of a collection in list order (LSI1, consistent). With a cursor this costs one
 * Query of `perPage` items; `page=N` without a cursor first skips N-1 pages of keys.
 */
export async function listPage<T = Record<string, unknown>>(collection: Collection, req: PageRequest): Promise<Page<T>> {
  let start: Record<string, unknown> | undefined;
  if (req.cursor) {
    start = { ...decodeCursor(req.cursor, collection) };
  } else if (req.page > 1) {
    start = await startKeyOfPage(collection, (req.page - 1) * req.perPage);
    if (!start) return { items: [] };
  }
  const items: Record<string, unknown>[] = [];
  let next = start;
  // A 1 MB response may stop short of perPage items; keep reading until the page is full.
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'LSI1',
        KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
        ConsistentRead: true,
        Limit: req.perPage - items.length,
        ...(next ? { ExclusiveStartKey: next } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    next = out.LastEvaluatedKey;
  } while (next && items.length < req.perPage);
  const last = items.at(-1);
  // DynamoDB returns a LastEvaluatedKey whenever Limit was reached, even at the very end; the
  // cursor then leads to an empty page, which is still correct. Totals come from counters.
  return { items: items as T[], nextCursor: next && last ? encodeCursor(last) : undefined };
}

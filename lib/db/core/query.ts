import { QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';

/** A Query as the data layer writes it: the table, consistency and paging are filled in here. */
export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey' | 'Limit'>;

type Key = Record<string, unknown>;
interface Page {
  Items?: Record<string, unknown>[];
  Count?: number;
  LastEvaluatedKey?: Key;
}

/**
 * THE paging loop of the data layer (Query and Scan alike): reads a page from `start`, hands it to
 * `onPage`, and goes on from where it stopped until the results end or `onPage` answers false.
 * Returns where it stopped: the LastEvaluatedKey of the last page read, undefined at the end.
 */
async function eachPage(
  read: (start: Key | undefined) => Promise<Page>,
  start: Key | undefined,
  onPage: (page: Page) => Promise<boolean | void> | boolean | void,
): Promise<Key | undefined> {
  do {
    const page = await read(start);
    start = page.LastEvaluatedKey;
    if ((await onPage(page)) === false) break;
  } while (start);
  return start;
}

/**
 * THE paged Query of the data layer: consistent (a client sees its own writes), from `start`,
 * one page after another, each handed to `onPage` with its items, until the results end or
 * `onPage` answers false (it is given where the next page starts). `limit` sizes each page as it is asked for (none: DynamoDB's 1 MB pages).
 * Returns where it stopped: the LastEvaluatedKey of the last page read, undefined at the end.
 */
export async function queryPages(
  input: QueryInput,
  options: { start?: Key | undefined; limit?: (() => number) | undefined },
  onPage: (items: Record<string, unknown>[], count: number, next: Key | undefined) => Promise<boolean | void> | boolean | void,
): Promise<Key | undefined> {
  return eachPage(
    (start) =>
      db.send(
        new QueryCommand({
          ...input,
          TableName: tableName(),
          ConsistentRead: true,
          ...(options.limit ? { Limit: options.limit() } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      ),
    options.start,
    (page) => onPage(page.Items ?? [], page.Count ?? 0, page.LastEvaluatedKey),
  );
}

/**
 * A bounded part of a Scan, for work that continues itself (lib/migrations): from `start` (undefined:
 * the beginning), at most `pages` pages of at most `limit` items read each.
 */
export interface ScanStep {
  start?: Key | undefined;
  pages: number;
  limit: number;
}

/**
 * The whole table (or what `input`'s filter keeps of it), page after page, consistently, each page
 * handed to `onPage`. Operators' commands and the data migrations only (`tools/cli/admin.ts`,
 * lib/migrations): no request path scans. `start` continues a Scan where an earlier one stopped;
 * `onPage` answering false stops it. Returns where it stopped (undefined: at the end).
 */
export async function scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey'>,
  onPage: (items: Record<string, unknown>[]) => Promise<boolean | void> | boolean | void,
  start?: Key,
): Promise<Key | undefined> {
  return eachPage(
    (from) =>
      db.send(
        new ScanCommand({ ...input, TableName: tableName(), ConsistentRead: true, ...(from ? { ExclusiveStartKey: from } : {}) }),
      ),
    start,
    (page) => onPage(page.Items ?? []),
  );
}

/** A read's filter to items of these types. */
export const ofTypes = (types: (string | undefined)[]) => ({
  FilterExpression: `#type IN (${types.map((_, i) => `:t${i}`).join(', ')})`,
  ExpressionAttributeNames: { '#type': 'type' },
  ExpressionAttributeValues: Object.fromEntries(types.map((t, i) => [`:t${i}`, t])),
});

/** Partitions read at once by a reader that goes through many (an organisation's projects, its accounts). */
export const PARTITIONS_AT_ONCE = 8;

/** The items of these types in partition `pk`, page after page (a Query: operators and tests only). */
export async function partitionPages(
  pk: string,
  types: (string | undefined)[],
  onPage: (items: Record<string, unknown>[]) => void,
): Promise<void> {
  const filter = ofTypes(types);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk',
      ...filter,
      ExpressionAttributeValues: { ...filter.ExpressionAttributeValues, ':pk': pk },
    },
    {},
    onPage,
  );
}

import { QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';

/** A Query as the data layer writes it: the table, consistency and paging are filled in here. */
export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey' | 'Limit'>;

/**
 * THE paged Query of the data layer: consistent (a client sees its own writes), from `start`,
 * one page after another, each handed to `onPage` with its items, until the results end or
 * `onPage` answers false. `limit` sizes each page as it is asked for (none: DynamoDB's 1 MB pages).
 * Returns where it stopped: the LastEvaluatedKey of the last page read, undefined at the end.
 */
export async function queryPages(
  input: QueryInput,
  options: { start?: Record<string, unknown> | undefined; limit?: (() => number) | undefined },
  onPage: (items: Record<string, unknown>[], count: number) => boolean | void,
): Promise<Record<string, unknown> | undefined> {
  let start = options.start;
  do {
    const out = await db.send(
      new QueryCommand({
        ...input,
        TableName: tableName,
        ConsistentRead: true,
        ...(options.limit ? { Limit: options.limit() } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    start = out.LastEvaluatedKey;
    if (onPage(out.Items ?? [], out.Count ?? 0) === false) break;
  } while (start);
  return start;
}

/**
 * The whole table (or what `input`'s filter keeps of it), page after page, consistently, each page
 * handed to `onPage`. Operators' commands only (`tools/cli/admin.ts`): no request path scans.
 */
export async function scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey'>,
  onPage: (items: Record<string, unknown>[]) => Promise<void> | void,
): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new ScanCommand({ ...input, TableName: tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    await onPage(out.Items ?? []);
    start = out.LastEvaluatedKey;
  } while (start);
}

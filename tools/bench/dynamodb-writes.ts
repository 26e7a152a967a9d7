/**
 * `npx tsx tools/bench/dynamodb-writes.ts [--items 3000] [--jvm C1|default] [--case kinds|growth|late-table|update]`:
 * what DynamoDB Local (in memory, on loopback, started here and shared with nothing) spends per
 * item written, each case on a new table of the project's definition: `kinds` (default) PutItem,
 * BatchWriteItem (25 a call) and TransactWriteItems of 10, 25, 50 and 100 conditional puts, with
 * the table's stream on and off; `growth` the same transactions five times over (the cost of an
 * item as the emulator's stream records grow); `late-table` the same transactions on a table whose
 * stream's first record was written before the others' and on one made after them (what the
 * growth is); `update` transactions of puts against updates
 * setting every field. Prints one JSON line per case: wall and emulator CPU milliseconds per item.
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient, CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { localClientConfig, startDynamoDbLocal } from '../local/dynamodb.ts';
import { createTableInput } from '../../lib/db/core/table.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '3000' },
    jvm: { type: 'string', default: 'default' },
    case: { type: 'string', default: 'kinds' },
  },
});
const total = Number(values.items);
const dynamo = await startDynamoDbLocal({ jvmOptions: values.jvm === 'C1' ? ['-XX:TieredStopAtLevel=1'] : [] });
const base = new DynamoDBClient(localClientConfig(dynamo.endpoint));
const db = DynamoDBDocumentClient.from(base);

/** An item about the size of an issue (its description a few lines), with its list key. */
const item = (table: string, n: number) => ({
  PK: `ORG#1#PROJECT#1#${table}`,
  SK: `ISSUE#${String(n).padStart(10, '0')}`,
  LSK: `LIST#backlog#${String(n).padStart(10, '0')}`,
  title: `Issue ${n}: "quoted", é 日本語`,
  description: `Line one of ${n}\nLine two, with a comma `.repeat(4),
  status: 'todo',
  priority: 'medium',
  labels: ['area-1', 'backend'],
  created_at: new Date().toISOString(),
  rev: 0,
});

let tableNo = 0;
async function table(stream: boolean): Promise<string> {
  const name = `writes-${tableNo++}`;
  const input = createTableInput(name);
  await base.send(new CreateTableCommand(stream ? input : { ...input, StreamSpecification: undefined }));
  return name;
}

async function measure(
  label: string,
  stream: boolean,
  write: (table: string, from: number, count: number) => Promise<void>,
  per: number,
  on?: string,
) {
  const name = on ?? (await table(stream));
  // Warm up the emulator's code paths on this table first.
  for (let n = 0; n < 200; n += per) await write(name, 1_000_000 + n, per);
  const cpu = dynamo.cpuSeconds() ?? 0;
  const started = performance.now();
  for (let n = 0; n < total; n += per) await write(name, n, Math.min(per, total - n));
  const ms = performance.now() - started;
  const cpuMs = ((dynamo.cpuSeconds() ?? 0) - cpu) * 1000;
  process.stdout.write(
    `${JSON.stringify({ case: label, stream, items: total, wall_ms_per_item: +(ms / total).toFixed(2), emulator_cpu_ms_per_item: +(cpuMs / total).toFixed(2) })}\n`,
  );
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** Conditional puts (as an import's are), or plain puts, or updates setting every field (as a search record's patch is). */
const transaction =
  (kind: 'conditional' | 'put' | 'update') =>
  (t: string, from: number, count: number): Promise<void> =>
    db
      .send(
        new TransactWriteCommand({
          TransactItems: range(from, count).map((n) => {
            const { PK, SK, ...rest } = item(t, n);
            const entries = Object.entries(rest);
            if (kind === 'update') {
              return {
                Update: {
                  TableName: t,
                  Key: { PK, SK },
                  UpdateExpression: `SET ${entries.map((_, i) => `#s${i} = :s${i}`).join(', ')}`,
                  ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#s${i}`, k])),
                  ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:s${i}`, v])),
                },
              };
            }
            return {
              Put: {
                TableName: t,
                Item: item(t, n),
                ...(kind === 'conditional' ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
              },
            };
          }),
        }),
      )
      .then(() => undefined);

if (values.case === 'growth') {
  // The same transactions again and again, each time on a new table: does the cost of an item
  // grow with what the emulator wrote before (its stream records), whatever the table?
  for (const size of [25, 100, 25, 100, 25]) await measure(`TransactWriteItems x${size}`, true, transaction('conditional'), size);
} else if (values.case === 'late-table') {
  // DynamoDB Local keeps every table's stream records in one list, and each write looks for its
  // stream's earliest record from the start of it: a table whose stream began first finds it at
  // once, one made after the others' records passes all of them, on every item.
  const early = await table(true);
  await transaction('conditional')(early, 2_000_000, 1);
  await measure('TransactWriteItems x25, a table made after one record of another', true, transaction('conditional'), 25);
  await measure('TransactWriteItems x25, a table whose stream began before', true, transaction('conditional'), 25, early);
  await measure('TransactWriteItems x25, a table made after', true, transaction('conditional'), 25);
} else if (values.case === 'update') {
  for (const kind of ['update', 'put', 'update', 'put'] as const)
    await measure(`TransactWriteItems x25 ${kind}s`, true, transaction(kind), 25);
} else {
  for (const stream of [true, false]) {
    await measure(
      'PutItem',
      stream,
      (t, from) => db.send(new PutCommand({ TableName: t, Item: item(t, from) })).then(() => undefined),
      1,
    );
    await measure(
      'BatchWriteItem x25',
      stream,
      (t, from, count) =>
        db
          .send(
            new BatchWriteCommand({
              RequestItems: { [t]: range(from, count).map((n) => ({ PutRequest: { Item: item(t, n) } })) },
            }),
          )
          .then(() => undefined),
      25,
    );
    for (const size of [10, 25, 50, 100]) await measure(`TransactWriteItems x${size}`, stream, transaction('conditional'), size);
  }
}
await dynamo.stop();

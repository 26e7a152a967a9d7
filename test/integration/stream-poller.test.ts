import { BatchWriteCommand, DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import {
  laneOf,
  MIN_ROUND_MS,
  startStreamPoller,
  startStreamReader,
  type StreamMappingOptions,
  type StreamPoller,
} from '../../tools/local/stream-poller.ts';
import { streamShards } from '../../tools/local/services.ts';

/**
 * The local event source mapping on its own, with a recording consumer in place of the cascade
 * (the run's own poller keeps feeding the real one; both read the same stream).
 */

let poller: Pick<StreamPoller, 'stop'> | undefined;
/** Lets a consumer that a test holds go on (else stopping its poller would wait for it). */
let releaseHeld: (() => void) | undefined;
afterEach(async () => {
  releaseHeld?.();
  releaseHeld = undefined;
  await poller?.stop();
  poller = undefined;
});

/** The run's DynamoDB Local (test/support/env.ts). */
const endpoint = () => String(process.env.DYNAMODB_ENDPOINT);
const unique = `poller-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const sortKey = (r: DynamoDBRecord) => r.dynamodb?.Keys?.SK?.S;

async function until(check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Writes and then removes items of `type`, each under its own key in a partition of this test. They
 * name organisation 0, which never exists, so what the run's real cascade makes of them touches nothing.
 */
async function putAndRemove(pk: string, type: string, names: string[]) {
  for (const name of names) {
    await db.send(new PutCommand({ TableName: tableName(), Item: { PK: pk, SK: name, type, org_id: 0, id: 0, project_id: 0 } }));
  }
  for (const name of names) await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: pk, SK: name } }));
}

describe('stream poller', () => {
  it('delivers only the removals of projects, sprints and issues, as Lambda-shaped records', async () => {
    const pk = `${unique}-filter`;
    const seen: DynamoDBRecord[] = [];
    poller = await startStreamPoller({
      endpoint: endpoint(),
      tableName: tableName(),
      handler: async (event) => {
        seen.push(...event.Records.filter((r) => r.dynamodb?.Keys?.PK?.S === pk));
        return { batchItemFailures: [] };
      },
    });

    await putAndRemove(pk, 'comment', ['c1']);
    await putAndRemove(pk, 'issue', ['i1', 'i2']);

    await until(() => seen.length >= 2);
    expect(seen.map(sortKey)).toEqual(['i1', 'i2']);
    expect(seen[0]).toMatchObject({
      eventName: 'REMOVE',
      eventSource: 'aws:dynamodb',
      dynamodb: { OldImage: { type: { S: 'issue' }, PK: { S: pk } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(seen[0]?.dynamodb?.SequenceNumber).toMatch(/^\d+$/);
  });

  it("hands each record over as Lambda's JSON has it: every attribute value as written, an empty map a map, the time in whole seconds", async () => {
    const pk = `${unique}-shape`;
    const seen: DynamoDBRecord[] = [];
    poller = await startStreamPoller({
      endpoint: endpoint(),
      tableName: tableName(),
      filters: [{ dynamodb: { Keys: { PK: { S: [pk] } } } }],
      handler: async (event) => {
        seen.push(...event.Records);
        return { batchItemFailures: [] };
      },
    });
    const Item = {
      PK: pk,
      SK: 'shape',
      type: 'issue',
      empty: {},
      nested: { inner: {}, list: [{}, 'x', 2] },
      labels: new Set([3, 1]),
      names: new Set(['a']),
      none: null,
      yes: true,
    };
    await db.send(new PutCommand({ TableName: tableName(), Item }));
    await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: pk, SK: 'shape' } }));

    await until(() => seen.length >= 2);
    const [insert, remove] = seen as [DynamoDBRecord, DynamoDBRecord];
    const image = {
      PK: { S: pk },
      SK: { S: 'shape' },
      type: { S: 'issue' },
      empty: { M: {} },
      nested: { M: { inner: { M: {} }, list: { L: [{ M: {} }, { S: 'x' }, { N: '2' }] } } },
      labels: { NS: expect.arrayContaining(['1', '3']) },
      names: { SS: ['a'] },
      none: { NULL: true },
      yes: { BOOL: true },
    };
    expect(insert).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb', eventVersion: expect.any(String) });
    expect(insert.dynamodb?.NewImage).toEqual(image);
    expect(insert.dynamodb?.Keys).toEqual({ PK: { S: pk }, SK: { S: 'shape' } });
    expect(remove.dynamodb?.OldImage).toEqual(image);
    expect(insert.eventSourceARN).toMatch(/^arn:aws:dynamodb:.*:table\/.*\/stream\//);
    const at = insert.dynamodb?.ApproximateCreationDateTime;
    expect(Number.isInteger(at)).toBe(true);
    expect(Math.abs(Number(at) - Date.now() / 1000)).toBeLessThan(120);
  });

  it('retries a batch from the first record the consumer reports failed', async () => {
    const pk = `${unique}-retry`;
    const batches: string[][] = [];
    let failed = false;
    poller = await startStreamPoller({
      endpoint: endpoint(),
      tableName: tableName(),
      handler: async (event): Promise<DynamoDBBatchResponse> => {
        const mine = event.Records.filter((r) => r.dynamodb?.Keys?.PK?.S === pk);
        if (mine.length === 0) return { batchItemFailures: [] };
        batches.push(mine.map((r) => String(sortKey(r))));
        const second = mine.find((r) => sortKey(r) === 'p2');
        if (!failed && second) {
          failed = true;
          return { batchItemFailures: [{ itemIdentifier: String(second.dynamodb?.SequenceNumber) }] };
        }
        return { batchItemFailures: [] };
      },
    });

    await putAndRemove(pk, 'project', ['p1', 'p2', 'p3']);

    await until(() => batches.flat().filter((k) => k === 'p2').length >= 2 && batches.flat().includes('p3'));
    const failedAt = batches.findIndex((b) => b.includes('p2'));
    const failedBatch = batches[failedAt] ?? [];
    // The retry is the failed batch from its failed record on; what came before is not redelivered.
    expect(batches[failedAt + 1]).toEqual(failedBatch.slice(failedBatch.indexOf('p2')));
    expect(batches.flat().filter((k) => k === 'p1')).toHaveLength(1);
  });
});

/**
 * Two partitions of this test in different lanes (of `lanes`), the first one's consumer held until
 * released: the other's records arrive meanwhile, and each partition's in stream order.
 */
async function expectBusyLaneHoldsUpNoOther(
  name: string,
  lanes: number,
  start: (handler: NonNullable<StreamMappingOptions['handler']>) => Promise<Pick<StreamPoller, 'stop'>>,
) {
  const slow = `${unique}-${name}-slow`;
  const fast = Array.from({ length: 20 }, (_, i) => `${unique}-${name}-fast-${i}`).find(
    (pk) => laneOf(pk, lanes) !== laneOf(slow, lanes),
  )!;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  releaseHeld = release;
  const seen: { pk: string; sk: string }[] = [];
  poller = await start(async (event) => {
    for (const r of event.Records) {
      const pk = String(r.dynamodb?.Keys?.PK?.S);
      if (pk !== slow && pk !== fast) continue;
      // The slow partition's consumer holds its lane until released.
      if (pk === slow) await released;
      seen.push({ pk, sk: String(sortKey(r)) });
    }
    return { batchItemFailures: [] };
  });

  await putAndRemove(slow, 'issue', ['s1', 's2', 's3']);
  await putAndRemove(fast, 'issue', ['f1', 'f2']);

  await until(() => seen.filter((s) => s.pk === fast).length === 2);
  expect(seen.filter((s) => s.pk === slow)).toEqual([]);
  release();
  await until(() => seen.filter((s) => s.pk === slow).length === 3);
  expect(seen.filter((s) => s.pk === slow).map((s) => s.sk)).toEqual(['s1', 's2', 's3']);
  expect(seen.filter((s) => s.pk === fast).map((s) => s.sk)).toEqual(['f1', 'f2']);
}

describe('stream poller with a parallelization factor', () => {
  it("delivers a partition's records in order while another lane's consumer is still busy", async () => {
    await expectBusyLaneHoldsUpNoOther('lane', 4, (handler) =>
      startStreamPoller({ endpoint: endpoint(), tableName: tableName(), parallelizationFactor: 4, batchSize: 1, handler }),
    );
  });

  it('puts every record of a partition key in the same lane', () => {
    for (const pk of ['ORG#0000000001#P#0000000001', 'ORG#0000000002', '']) {
      const lane = laneOf(pk, 10);
      expect(lane).toBeGreaterThanOrEqual(0);
      expect(lane).toBeLessThan(10);
      expect(laneOf(pk, 10)).toBe(lane);
    }
    const spread = new Set(Array.from({ length: 100 }, (_, i) => laneOf(`ORG#${i}#P#1`, 10)));
    expect(spread.size).toBe(10);
  });
});

describe('stream reader read as several shards', () => {
  it("holds up no partition of another shard behind a busy one, each partition's records still in order", async () => {
    // A mapping of one lane per shard.
    await expectBusyLaneHoldsUpNoOther('shard', 4, (handler) =>
      startStreamReader({ endpoint: endpoint(), tableName: tableName(), shards: 4 }, [{ batchSize: 1, handler }]),
    );
  });

  it('reads the stream as one shard unless STREAM_SHARDS says how many', () => {
    expect(streamShards(undefined)).toBeUndefined();
    expect(streamShards('')).toBeUndefined();
    expect(streamShards('8')).toBe(8);
    for (const bad of ['0', '-1', '1.5', 'eight', '101']) {
      expect(() => streamShards(bad), bad).toThrow(/STREAM_SHARDS must be a whole number from 1 to 100/);
    }
  });
});

describe('one stream reader for several mappings', () => {
  it('hands each record to every mapping whose filters pass it, each in its own batches, a held consumer holding up no other', async () => {
    const pk = `${unique}-shared`;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    releaseHeld = release;
    const mine = (records: DynamoDBRecord[]) => records.filter((r) => r.dynamodb?.Keys?.PK?.S === pk);
    const removals: string[] = [];
    const inserts: string[] = [];
    const held: string[] = [];
    const reader = await startStreamReader({ endpoint: endpoint(), tableName: tableName() }, [
      // The default filters: removals of projects, sprints and issues.
      { handler: async (event) => void removals.push(...mine(event.Records).map((r) => String(sortKey(r)))) },
      {
        filters: [{ eventName: ['INSERT'] }],
        handler: async (event) => void inserts.push(...mine(event.Records).map((r) => String(sortKey(r)))),
      },
      // A consumer that holds its batch until released.
      {
        filters: [{ eventName: ['INSERT'] }],
        handler: async (event) => {
          if (mine(event.Records).length > 0) await released;
          held.push(...mine(event.Records).map((r) => String(sortKey(r))));
        },
      },
    ]);
    poller = reader;

    await putAndRemove(pk, 'issue', ['a', 'b']);
    await putAndRemove(pk, 'comment', ['c']);

    await until(() => removals.length === 2 && inserts.length === 3);
    expect(removals).toEqual(['a', 'b']);
    expect(inserts).toEqual(['a', 'b', 'c']);
    expect(held).toEqual([]);
    release();
    await until(() => held.length === 3);
    expect(held).toEqual(['a', 'b', 'c']);
    const [forRemovals, forInserts] = reader.lags();
    expect(forRemovals!.records).toBeGreaterThanOrEqual(2);
    expect(forInserts!.records).toBeGreaterThanOrEqual(3);
    expect(reader.reads().calls).toBeGreaterThan(0);
  });
});

describe('reading rounds', () => {
  it('reads a stream that is never drained for long at most five rounds a second, not back to back', async () => {
    const pk = `${unique}-rounds`;
    const started = Date.now();
    // Even with no pause after an empty round.
    const reader = await startStreamReader({ endpoint: endpoint(), tableName: tableName(), idleMs: 0 }, [
      { filters: [{ eventName: ['INSERT'] }], handler: async () => {} },
    ]);
    poller = reader;
    // Writes one after another for two seconds: every round finds records. They name no type a
    // consumer of the run takes.
    const written: string[] = [];
    while (Date.now() - started < 2000) {
      const sk = `w${written.length}`;
      await db.send(new PutCommand({ TableName: tableName(), Item: { PK: pk, SK: sk, type: 'poller-round', org_id: 0 } }));
      written.push(sk);
    }
    const { rounds, calls } = reader.reads();
    const elapsed = Date.now() - started;
    expect(calls).toBeGreaterThan(0);
    expect(rounds, `${rounds} rounds (${calls} GetRecords calls) in ${elapsed} ms`).toBeLessThanOrEqual(
      Math.floor(elapsed / MIN_ROUND_MS) + 1,
    );
    for (let i = 0; i < written.length; i += 25) {
      const keys = written.slice(i, i + 25).map((sk) => ({ DeleteRequest: { Key: { PK: pk, SK: sk } } }));
      await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: keys } }));
    }
  });
});

import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetShardIteratorCommand,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { Sha256 } from '../../lib/aws/sha256.ts';
import { cascadeStreamFilters } from '../../lib/db/core/table.ts';
import { localClientConfig } from './dynamodb.ts';
import { lambdaContext, loadHandler } from './gateway.ts';
import { runAsFunction } from './permissions.ts';

/**
 * The local stand-in for a Lambda event source mapping on the table's stream: it reads DynamoDB
 * Local's stream shard by shard (following child shards when one closes) and invokes the stream
 * consumer (functions/cascade.ts, the module Lambda runs) with Lambda-shaped events, applying the
 * same event filters (pending cascades included: the poller drives continuations as the mapping
 * does in AWS) and honouring partial batch failures (ReportBatchItemFailures): the batch is
 * retried from the first failed record, a few times, then skipped with an error in the log, as a
 * mapping with MaximumRetryAttempts does. With a ParallelizationFactor, as in AWS, records go to
 * lanes by partition key, each lane delivering in order while the others go on, and the poller
 * reads ahead while they work (up to a bound). DynamoDB Local keeps the whole table's stream in one
 * shard, where AWS keeps a shard per partition of the table: with `shards`, the reader spreads what
 * it reads over that many shards by partition key, each with the mapping's lanes.
 */

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

/** One of the stack's stream consumers, within its grant (infra/grants.ts) as in AWS. */
export async function streamConsumer(functionModule: string): Promise<StreamHandler> {
  const consume = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>(functionModule);
  return (event, context) => runAsFunction(functionModule, [], () => consume(event, context));
}

/** One event source mapping on the stream: its consumer, filters and batching. */
export interface StreamMappingOptions {
  /** The consumer; by default the handler of `functionModule`. */
  handler?: StreamHandler;
  /** The consumer's module (default `functions/cascade.ts`). */
  functionModule?: string;
  /** The mapping's event filters, any of which passes a record (default: the cascade's). */
  filters?: readonly unknown[];
  /** Records per invocation at most (the mapping's BatchSize; the CDK stack's is 100). */
  batchSize?: number;
  /**
   * The mapping's ParallelizationFactor (default 1): batches of one shard delivered at once, the
   * records of one partition key always in the same lane, in stream order (lanes by a hash of the
   * key, as Lambda assigns them). A busy partition then holds up only the keys of its own lane.
   */
  parallelizationFactor?: number;
  /** The consumer's timeout (the CDK stack gives it 5 minutes); its context counts down from it. */
  timeoutMs?: number;
  /** Retries of a failing batch before its records are skipped. */
  maxRetries?: number;
}

/** Where the stream is, and how it is read. */
export interface StreamReaderOptions {
  endpoint: string;
  tableName: string;
  /** Pause after a round that found no records (a round lasts `MIN_ROUND_MS` at least in any case). */
  idleMs?: number;
  /**
   * The shards the table's stream would have in AWS, one per partition of the table (default 1).
   * DynamoDB Local has one, whatever the table holds; the reader splits it into this many by a hash
   * of the partition key, as DynamoDB places items in partitions, so each mapping has this many
   * times its ParallelizationFactor lanes. A table shared by many organisations at once (the test
   * run's) is one of many partitions: there, one organisation writing thousands of records holds
   * up only the few others hashed to its lane, as it would in AWS.
   */
  shards?: number;
  log?: (line: string) => void;
}

export type StreamPollerOptions = StreamReaderOptions & StreamMappingOptions;

export interface StreamPoller {
  /** Stops after the batches in hand (if any) have been delivered. */
  stop(): Promise<void>;
  /** How far behind the table the consumer has run so far. */
  lag(): StreamLag;
}

/** A reader of the stream feeding several mappings: each as a poller of its own would. */
export interface StreamReader {
  /** Stops reading, after each mapping's batches in hand (if any) have been delivered. */
  stop(): Promise<void>;
  /** Each mapping's lag, in the order they were given. */
  lags(): StreamLag[];
  /** The rounds of reads begun so far, their GetRecords calls, and how many of those returned nothing. */
  reads(): { rounds: number; calls: number; emptyCalls: number };
}

/**
 * The consumer's lag: for each record handed to it, an upper bound of the time from its write to the
 * end of its delivery. DynamoDB Local's `ApproximateCreationDateTime` is rounded down to the minute,
 * so the write time is bounded instead: a record that a GetRecords call returns was written after
 * the last earlier call that drained the shard (returned fewer records than its limit) began.
 */
export interface StreamLag {
  records: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
}

/** Keeps every lag (a run of the suite hands over some hundred thousand records) and summarises them. */
function lagRecorder() {
  const lags: number[] = [];
  return {
    add(writtenAfter: number, deliveredAt: number) {
      lags.push(Math.max(0, deliveredAt - writtenAfter));
    },
    summary(): StreamLag {
      const sorted = Float64Array.from(lags).sort();
      const at = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
      return { records: sorted.length, medianMs: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) ?? 0 };
    },
  };
}

interface ShardState {
  id: string;
  parentId: string | undefined;
  iterator: string | undefined;
  /** Last sequence number handed to the consumer: where to resume when the iterator expires. */
  lastSequence: string | undefined;
  /** How to obtain the first iterator: LATEST for shards open at start, TRIM_HORIZON for new ones. */
  startAt: ShardIteratorType;
  /** When the last GetRecords call that drained the shard began: what it returns next was written after. */
  drainedAt: number;
  closed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GetRecords' limit (DynamoDB Streams' largest). */
const RECORDS_PER_CALL = 1000;
/**
 * The least time from one round of reads (a GetRecords call on each open shard) to the next. Lambda
 * polls a shard a few times a second (four, at its base rate), not back to back; and a call costs
 * DynamoDB Local about as much whatever it returns: back to back, a run of the suite made 7× the
 * calls, each returning a few records (docs/local-development.md).
 */
export const MIN_ROUND_MS = 200;
/** Records read ahead and not yet delivered, at most, before the poller waits for its lanes. */
const MAX_QUEUED = 20 * RECORDS_PER_CALL;

/** A lane of the mapping: records waiting for delivery, in stream order, each with its write bound. */
interface Lane {
  queue: { record: DynamoDBRecord; writtenAfter: number }[];
  running: Promise<void> | undefined;
}

/** A batch's partition keys, the busiest first, with their record counts. */
function partitionsOf(batch: Lane['queue']): string {
  const counts = new Map<string, number>();
  for (const { record } of batch) {
    const pk = record.dynamodb?.Keys?.PK?.S ?? '?';
    counts.set(pk, (counts.get(pk) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([pk, n]) => `${pk} ×${n}`)
    .join(', ');
}

/** The lane of a partition key: a stable hash (FNV-1a) of the key, modulo the lanes. */
export function laneOf(partitionKey: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < partitionKey.length; i++) {
    hash ^= partitionKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % lanes;
}

/** Does a value match a Lambda event filter pattern (the subset we use: lists of allowed values)? */
function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value as never);
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([k, p]) => matchesPattern((value as Record<string, unknown>)[k], p));
  }
  return value === pattern;
}

/** A record as DynamoDB Streams' JSON carries it: Lambda's record, without the mapping's `eventSourceARN`. */
type StreamRecord = Omit<DynamoDBRecord, 'eventSourceARN'>;

/** GetRecords' answer. */
interface RecordsPage {
  Records?: StreamRecord[];
  NextShardIterator?: string;
}

type LambdaImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/**
 * An image as Lambda receives it: DynamoDB Local writes an empty map (`{"M": {}}`) as a value with
 * no type (`{}`), which Lambda's JSON never carries; it is an empty map again here.
 */
function asLambdaImage(image: LambdaImage): LambdaImage {
  const value = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const typed = v as Record<string, unknown>;
    if (typed.M && typeof typed.M === 'object') return { M: asLambdaImage(typed.M as LambdaImage) };
    if (Array.isArray(typed.L)) return { L: typed.L.map(value) };
    for (const _ in typed) return v;
    return { M: {} };
  };
  const out: Record<string, unknown> = {};
  for (const key in image) out[key] = value(image[key]);
  return out as LambdaImage;
}

/** What Lambda hands a consumer: the record as read, with its stream, and its time in whole seconds. */
function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  const at = d.ApproximateCreationDateTime;
  return {
    ...record,
    eventSourceARN: streamArn,
    dynamodb: {
      ...d,
      ...(at === undefined ? {} : { ApproximateCreationDateTime: Math.floor(at) }),
      ...(d.NewImage ? { NewImage: asLambdaImage(d.NewImage) } : {}),
      ...(d.OldImage ? { OldImage: asLambdaImage(d.OldImage) } : {}),
    },
  };
}

/**
 * GetRecords, its answer read as the JSON it is: the records are in the shape Lambda hands a
 * consumer, but for DynamoDB Local's empty maps (`toLambdaRecord`). The SDK's client would turn
 * each value into its own types first: a page of 1,000 records of the test run took 72 ms of CPU
 * to read through it, and 20 ms read as JSON and made Lambda's records. Signed with
 * Signature V4 by the SDK's own signer, as its client signs. Throws an error named by the
 * service's error type (`ExpiredIteratorException`...).
 */
function recordsReader(endpoint: string) {
  const url = new URL(endpoint);
  const { region, credentials } = localClientConfig(endpoint);
  const signer = new SignatureV4({ service: 'dynamodb', region, credentials, sha256: Sha256 });
  return async (shardIterator: string): Promise<RecordsPage> => {
    const body = JSON.stringify({ ShardIterator: shardIterator, Limit: RECORDS_PER_CALL });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: '/',
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDBStreams_20120810.GetRecords',
      },
      body,
    });
    const res = await fetch(url, { method: 'POST', headers: signed.headers, body });
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as RecordsPage;
    const answer = (() => {
      try {
        return JSON.parse(text) as { __type?: string; message?: string; Message?: string };
      } catch {
        return {};
      }
    })();
    const error = new Error(`GetRecords: ${res.status} ${answer.message ?? answer.Message ?? text.slice(0, 200)}`);
    error.name = answer.__type?.split('#').pop() ?? 'GetRecordsError';
    throw error;
  };
}

/** A mapping's delivery side: lanes of records waiting, handed to its consumer in batches. */
async function startMapping(options: StreamMappingOptions, shards: number, log: (line: string) => void) {
  const batchSize = options.batchSize ?? 100;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const maxRetries = options.maxRetries ?? 5;
  const handler = options.handler ?? (await streamConsumer(options.functionModule ?? 'functions/cascade.ts'));
  const filters = options.filters ?? cascadeStreamFilters;
  // STREAM_POLLER_SLOW_MS=3000: log each batch delivered more than that after its writes, with its partitions.
  const slowBatchMs = process.env.STREAM_POLLER_SLOW_MS ? Number(process.env.STREAM_POLLER_SLOW_MS) : undefined;
  // Each shard's lanes (its ParallelizationFactor): a partition key's shard and lane in one hash.
  const lanes: Lane[] = Array.from({ length: shards * Math.max(1, options.parallelizationFactor ?? 1) }, () => ({
    queue: [],
    running: undefined,
  }));
  const lags = lagRecorder();
  let stopping = false;

  /** Hands records to the consumer, retrying from the first failed record; returns when done. */
  async function deliver(records: DynamoDBRecord[]) {
    let pending = records;
    for (let attempt = 0; pending.length > 0; attempt++) {
      let failedFrom: number | undefined;
      try {
        const deadline = Date.now() + timeoutMs;
        const context = { ...lambdaContext('cascade'), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
        const response = await handler({ Records: pending }, context);
        const ids = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
        if (ids.length > 0) {
          const indexes = ids.map((id) => pending.findIndex((r) => r.dynamodb?.SequenceNumber === id));
          // An identifier that names no record fails the whole batch, as Lambda treats it.
          failedFrom = indexes.some((i) => i < 0) ? 0 : Math.min(...indexes);
        }
      } catch (err) {
        log(`stream consumer threw: ${(err as Error).stack ?? String(err)}`);
        failedFrom = 0;
      }
      if (failedFrom === undefined) return;
      pending = pending.slice(failedFrom);
      if (stopping) return;
      if (attempt >= maxRetries) {
        log(`stream consumer failed ${attempt + 1} times; skipping ${pending.length} record(s)`);
        return;
      }
      await sleep(Math.min(5000, 200 * 2 ** attempt));
    }
  }

  /** Delivers a lane's records in batches, in order, until its queue is empty. */
  async function drain(lane: Lane): Promise<void> {
    while (lane.queue.length > 0 && !stopping) {
      const batch = lane.queue.splice(0, batchSize);
      await deliver(batch.map((q) => q.record));
      const deliveredAt = Date.now();
      for (const { writtenAfter } of batch) lags.add(writtenAfter, deliveredAt);
      const lag = deliveredAt - (batch[0]?.writtenAfter ?? deliveredAt);
      if (slowBatchMs !== undefined && lag > slowBatchMs)
        log(`stream poller: a batch delivered ${lag} ms late: ${partitionsOf(batch)}`);
    }
    lane.running = undefined;
  }

  const queued = () => lanes.reduce((n, lane) => n + lane.queue.length, 0);

  return {
    /** Queues the records its filters pass, each in the lane of its partition key. */
    take(records: DynamoDBRecord[], writtenAfter: number) {
      for (const record of records) {
        if (!filters.some((f) => matchesPattern(record, f))) continue;
        const lane = lanes[laneOf(record.dynamodb?.Keys?.PK?.S ?? '', lanes.length)]!;
        lane.queue.push({ record, writtenAfter });
        lane.running ??= drain(lane);
      }
    },
    /** Until the lanes hold fewer than `MAX_QUEUED` records (read-ahead stays bounded). */
    async roomToRead() {
      while (queued() >= MAX_QUEUED && !stopping) {
        const running = lanes.flatMap((lane) => (lane.running ? [lane.running] : []));
        if (running.length === 0) return;
        await Promise.race(running);
      }
    },
    async stop() {
      stopping = true;
      await Promise.all(lanes.map((lane) => lane.running));
    },
    lag: () => lags.summary(),
  };
}

/**
 * Starts reading the table's stream from its current end (LATEST) for one mapping. Resolves once
 * every open shard has an iterator, so any write made after that is seen.
 */
export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const reader = await startStreamReader(options, [options]);
  return { stop: () => reader.stop(), lag: () => reader.lags()[0]! };
}

/**
 * Starts reading the table's stream from its current end (LATEST) for several mappings at once:
 * each record is read once and handed to every mapping whose filters pass it, each mapping with
 * its own lanes, batches and retries, as separate event source mappings would have them (a slow
 * consumer holds up the reading only once its read-ahead is full). Resolves once every open shard
 * has an iterator, so any write made after that is seen.
 */
export async function startStreamReader(
  options: StreamReaderOptions,
  mappingOptions: StreamMappingOptions[],
): Promise<StreamReader> {
  const clientConfig = localClientConfig(options.endpoint);
  // The shards and their iterators through the SDK's client; the records themselves as JSON (`recordsReader`).
  const streams = new DynamoDBStreamsClient(clientConfig);
  const getRecords = recordsReader(options.endpoint);
  const dynamo = new DynamoDBClient(clientConfig);
  const log = options.log ?? ((line: string) => console.error(line));
  const idleMs = options.idleMs ?? 100;
  const awsShards = Math.max(1, Math.floor(options.shards ?? 1));
  const mappings = await Promise.all(mappingOptions.map((m) => startMapping(m, awsShards, log)));
  const reads = { rounds: 0, calls: 0, emptyCalls: 0 };

  const table = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
  dynamo.destroy();
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);

  const shards = new Map<string, ShardState>();
  let stopping = false;
  async function listShards(): Promise<Shard[]> {
    const all: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      all.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return all;
  }

  /** Registers shards not seen before; at start, closed shards are history and skipped. */
  async function discoverShards(initial: boolean) {
    for (const shard of await listShards()) {
      if (!shard.ShardId || shards.has(shard.ShardId)) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      shards.set(shard.ShardId, {
        id: shard.ShardId,
        parentId: shard.ParentShardId,
        iterator: undefined,
        lastSequence: undefined,
        startAt: initial ? 'LATEST' : 'TRIM_HORIZON',
        drainedAt: Date.now(),
        closed: initial && closed,
      });
    }
  }

  async function iteratorFor(shard: ShardState): Promise<string | undefined> {
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.id,
        ...(shard.lastSequence
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.lastSequence }
          : { ShardIteratorType: shard.startAt }),
      }),
    );
    return out.ShardIterator;
  }

  /** One GetRecords on a shard; true when it returned records. */
  async function pollShard(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await iteratorFor(shard);
    if (!shard.iterator) {
      shard.closed = true;
      return false;
    }
    let out;
    const calledAt = Date.now();
    try {
      out = await getRecords(shard.iterator);
    } catch (err) {
      if ((err as Error).name === 'ExpiredIteratorException') {
        shard.iterator = undefined;
        return false;
      }
      if ((err as Error).name === 'TrimmedDataAccessException') {
        shard.lastSequence = undefined;
        shard.startAt = 'TRIM_HORIZON';
        shard.iterator = undefined;
        return false;
      }
      throw err;
    }
    const records = out.Records ?? [];
    reads.calls++;
    if (records.length === 0) reads.emptyCalls++;
    shard.iterator = out.NextShardIterator;
    if (!shard.iterator) shard.closed = true;
    const writtenAfter = shard.drainedAt;
    if (records.length < RECORDS_PER_CALL) shard.drainedAt = calledAt;
    if (records.length === 0) return false;
    const lambdaRecords = records.map((r) => toLambdaRecord(r, streamArn as string));
    for (const mapping of mappings) mapping.take(lambdaRecords, writtenAfter);
    shard.lastSequence = records.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSequence;
    return true;
  }

  await discoverShards(true);
  for (const shard of shards.values()) if (!shard.closed) shard.iterator = await iteratorFor(shard);

  let lastDiscovery = Date.now();

  const loop = (async () => {
    while (!stopping) {
      const roundStart = Date.now();
      reads.rounds++;
      let busy = false;
      try {
        const closedBefore = [...shards.values()].filter((s) => s.closed).length;
        for (const shard of shards.values()) {
          if (stopping) break;
          // A child shard is read only after its parent: records of one item stay in order.
          const parent = shard.parentId ? shards.get(shard.parentId) : undefined;
          if (shard.closed || (parent && !parent.closed)) continue;
          for (const mapping of mappings) await mapping.roomToRead();
          if (await pollShard(shard)) busy = true;
        }
        const closedAfter = [...shards.values()].filter((s) => s.closed).length;
        if (closedAfter > closedBefore || Date.now() - lastDiscovery > 5000) {
          lastDiscovery = Date.now();
          await discoverShards(false);
        }
      } catch (err) {
        if (stopping) break;
        log(`stream poller: ${(err as Error).message}`);
        await sleep(1000);
      }
      if (!stopping) await sleep(Math.max(busy ? 0 : idleMs, MIN_ROUND_MS - (Date.now() - roundStart)));
    }
  })();

  return {
    async stop() {
      stopping = true;
      await loop;
      await Promise.all(mappings.map((mapping) => mapping.stop()));
      streams.destroy();
    },
    lags: () => mappings.map((mapping) => mapping.lag()),
    reads: () => ({ ...reads }),
  };
}

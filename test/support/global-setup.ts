import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { TestProject } from 'vitest/node';
import { localClientConfig, longRunJvmOptions, startDynamoDbLocal } from '../../tools/local/dynamodb.ts';
import { startLocalS3 } from '../../tools/local/s3.ts';
import { ensureTable } from '../../tools/local/table.ts';
import { buildOpenApiDocument, type OpenApiDocument } from '../../tools/openapi/document.ts';
import { ownTableName } from './own-table-names.ts';
import { runTmpPrefix } from './run-tmp.ts';
import { testSecretKey } from './secret-key.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
    s3Endpoint: string;
    attachmentsBucket: string;
    /** The OpenAPI document as the route table makes it now: every e2e response is checked against it (test/support/contract.ts). */
    openApiDocument: OpenApiDocument;
  }
}

/** Makes a table and writes (then deletes) an item in it: its stream's first record. */
async function startStreamEarly(endpoint: string, name: string) {
  await ensureTable(endpoint, name);
  const client = new DynamoDBClient(localClientConfig(endpoint));
  const Key = { PK: { S: 'STREAM#start' }, SK: { S: 'STREAM#start' } };
  await client.send(new PutItemCommand({ TableName: name, Item: Key }));
  await client.send(new DeleteItemCommand({ TableName: name, Key }));
  client.destroy();
}

/** One in-memory DynamoDB Local (shared database) for the whole run, on a free port. */
export default async function setup(project: TestProject) {
  // The run's temporary folder: what the tests, the CDK's syntheses and the processes they start
  // write under the system's temporary folder goes here (os.tmpdir() reads TMPDIR, which the
  // workers and their children inherit), and it goes with the run instead of piling up in /tmp.
  const runTmp = mkdtempSync(join(tmpdir(), runTmpPrefix));
  process.env.TMPDIR = runTmp;
  // Both of the JVM's compilers: over a run of minutes the optimising one earns back its cost
  // (tools/local/dynamodb.ts, longRunJvmOptions).
  const dynamo = await startDynamoDbLocal({ jvmOptions: longRunJvmOptions });
  const tableName = 'sprint-ticketing-test';
  await ensureTable(dynamo.endpoint, tableName);
  // The own-table project's tables, one per worker slot, each with a stream record before the run
  // writes anything else: a table made later would pay for every earlier record on each write
  // (test/support/own-table-names.ts).
  for (let slot = 1; slot <= project.config.maxWorkers; slot++)
    await startStreamEarly(dynamo.endpoint, ownTableName(tableName, slot));
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('tableName', tableName);
  project.provide('openApiDocument', buildOpenApiDocument());
  // The attachments' bucket on a local S3-compatible server, in a temporary folder (docs/attachments.md).
  const s3 = await startLocalS3({ bucket: 'sprint-ticketing-test-attachments' });
  project.provide('s3Endpoint', s3.endpoint);
  project.provide('attachmentsBucket', s3.bucket);
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.ATTACHMENTS_BUCKET = s3.bucket;
  // The stream consumer runs here, once for the run, so every test's deletes cascade as in AWS.
  // The shared modules read these once, on first use: set them before using any of them.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // A consumer deadline of a few milliseconds (half of this): every cascade of the run continues
  // itself page by page through pending cascades, as a very large one does in AWS.
  process.env.CASCADE_TIMEOUT_MS ??= '20';
  // A batch the stream poller delivers more than 5 s after its writes (a quarter of the tests' wait
  // for the change feed, test/support/eventually.ts) is logged with its partitions: a run's outlier
  // says where it came from.
  process.env.STREAM_POLLER_SLOW_MS ??= '5000';
  // The run's table is shared by every test file's organisations at once: read its stream as a table
  // of eight partitions would be in AWS (eight shards, each with the mappings' lanes), not as one
  // (DynamoDB Local's single shard), so that a file writing thousands of records in one project holds
  // up the change feed of few other files' projects (tools/local/stream-poller.ts).
  process.env.STREAM_SHARDS ??= '8';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  // No periodic expiry sweep over the run's shared table: a test that needs one sweeps itself, with
  // its own clock and its own organisation (tools/local/expiry.ts).
  process.env.LOCAL_EXPIRY_SWEEP_SECONDS ??= '0';
  // Webhook delivery on a fast clock (docs/change-feed.md): receivers on loopback, retries after
  // 100 ms doubling to at most 800 ms, retried for 6 s, endpoints disabled after 10 s of failures.
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_BACKOFF_BASE_MS = '100';
  process.env.WEBHOOK_BACKOFF_MAX_MS = '800';
  process.env.WEBHOOK_RETRY_WINDOW_MS = '6000';
  process.env.WEBHOOK_DISABLE_AFTER_MS = '10000';
  process.env.WEBHOOK_TIMEOUT_MS = '2000';
  // The delivery function opens the secrets the test files seal: the same fixed local key.
  process.env.WEBHOOK_SECRET_LOCAL_KEY = testSecretKey;
  // Fair delivery (docs/change-feed.md) as in AWS: 50 attempts at once in the fast lane and 10 in
  // the slow one (an organisation holds at most a fifth, an endpoint half of that), and a message
  // over its organisation's cap back after 100 ms (doubling to 3.2 s).
  process.env.WEBHOOK_CONCURRENCY = '50';
  process.env.WEBHOOK_SLOW_CONCURRENCY = '10';
  process.env.WEBHOOK_DEFER_MS = '100';
  // Only an attempt that reaches the 2 s timeout is slow here: a healthy receiver on a machine
  // loaded by the whole suite can take a second, and must not be sent to the slow lane for it.
  process.env.WEBHOOK_SLOW_MS = '2000';
  // Every OAuth test registers clients from 127.0.0.1, in one table: the per-address hourly limit
  // is the dedicated test's (test/e2e/oauth-registration.test.ts), not every file's.
  process.env.OAUTH_REGISTRATION_LIMIT = '100000';
  // A table made by this release holds nothing to migrate: its migrations are recorded done, as
  // `npm start` records them on a new table (test/integration/migrations.test.ts migrates a table of its own).
  const { runMigrations } = await import('../../lib/migrations/runner.ts');
  await runMigrations();
  const { startLocalServices } = await import('../../tools/local/services.ts');
  const services = await startLocalServices(dynamo.endpoint);
  return async () => {
    const lag = services.lag();
    const line = (name: string, l: typeof lag.cascade) =>
      `${name}: ${l.records} records, lag median ${l.medianMs} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms`;
    console.log(
      `stream consumers (${lag.reads.calls} GetRecords calls in ${lag.reads.rounds} rounds, ${lag.reads.emptyCalls} empty), write to delivered:`,
    );
    for (const [name, l] of [
      ['change feed', lag.changeFeed],
      ['cascade', lag.cascade],
      ['import jobs', lag.importJobs],
    ] as const)
      console.log(`  ${line(name, l)}`);
    const jvm = dynamo.cpuSeconds();
    if (jvm !== undefined) console.log(`DynamoDB Local: ${jvm.toFixed(1)} s of CPU`);
    await services.stop();
    await dynamo.stop();
    await s3.stop();
    rmSync(runTmp, { recursive: true, force: true });
  };
}

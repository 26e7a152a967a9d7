/**
 * `npm start`: DynamoDB Local (unless DYNAMODB_ENDPOINT is set), the attachments' S3-compatible server
 * (unless S3_ENDPOINT is set), the table, a first organisation
 * on an empty table, and the API Gateway emulator on HOST (127.0.0.1 by default) and PORT. Stops
 * cleanly on SIGINT/SIGTERM.
 */
import type { Server } from 'node:http';
import { localConfig, ownAddresses } from './config.ts';
import { quickJvmOptions, startDynamoDbLocal, type RunningDynamoDb } from './dynamodb.ts';
import type { LocalServices } from './services.ts';
import { startLocalS3, type RunningS3 } from './s3.ts';
import { ensureTable } from './table.ts';

const cfg = localConfig;
let dynamo: RunningDynamoDb | undefined;
let s3: RunningS3 | undefined;
let services: LocalServices | undefined;
let server: Server | undefined;

// Registered before anything starts, so that a signal during startup still stops DynamoDB Local.
let stopping = false;
async function shutdown(reason: string, code: number) {
  if (stopping) return;
  stopping = true;
  console.log(`${reason}: shutting down`);
  server?.close();
  server?.closeAllConnections();
  await services?.stop();
  await dynamo?.stop();
  await s3?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown('SIGINT', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
const fail = (err: unknown) => {
  console.error(`npm start failed: ${(err as Error).message ?? String(err)}`);
  void shutdown('error', 1);
};

try {
  let endpoint = cfg.dynamodbEndpoint;
  if (!endpoint) {
    dynamo = await startDynamoDbLocal({ port: cfg.dynamodbPort, dataDir: cfg.dataDir, jvmOptions: quickJvmOptions });
    endpoint = dynamo.endpoint;
    console.log(`DynamoDB Local on ${endpoint} (data in ${cfg.dataDir}/)`);
  }
  // The attachments' bucket on a local S3-compatible server (docs/attachments.md), unless S3_ENDPOINT names one.
  if (!cfg.s3Endpoint) {
    const own = ownAddresses(cfg.host, cfg.port);
    s3 = await startLocalS3({
      bucket: cfg.bucket,
      port: cfg.s3Port,
      dataDir: cfg.dataDir,
      origins: [own.publicUrl, ...(process.env.CORS_ORIGINS ?? '').split(',').filter(Boolean)],
    });
    console.log(`S3 (s3rver) on ${s3.endpoint}, bucket ${cfg.bucket} (data in ${cfg.dataDir}/s3/)`);
  }
  process.env.S3_ENDPOINT = cfg.s3Endpoint ?? s3?.endpoint;
  process.env.ATTACHMENTS_BUCKET = cfg.bucket;
  // The shared modules read these once, on first use: set them before anything talks to DynamoDB.
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = cfg.tableName;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // One readable line per request (the gateway's): no Embedded Metric Format blob beside it, which
  // only CloudWatch reads. AWS keeps both the structured logs and the metrics.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // The service's own address: the OAuth issuer, and the names /mcp answers to (docs/mcp.md).
  const own = ownAddresses(cfg.host, cfg.port);
  process.env.PUBLIC_URL ??= own.publicUrl;
  process.env.MCP_ALLOWED_HOSTS ??= own.hosts.join(',');
  // Webhooks to receivers on this machine are allowed locally (never on Lambda): docs/change-feed.md.
  process.env.WEBHOOK_ALLOW_LOOPBACK ??= '1';
  // Webhook secrets are sealed with a key kept beside the data (no KMS locally): docs/change-feed.md.
  const { useLocalSecretKey } = await import('./secret-key.ts');
  useLocalSecretKey(cfg.dataDir);
  const created = await ensureTable(endpoint, cfg.tableName);
  if (created === 'created') console.log(`Created table ${cfg.tableName}`);

  const { bootstrapFirstOrganisation, tokenRegenerateHint } = await import('./bootstrap.ts');
  const { createGateway } = await import('./gateway.ts');
  const { routes } = await import('../../lib/routes.ts');
  const { startLocalServices } = await import('./services.ts');

  // The pending data migrations, before the first request (docs/deploying.md: upgrades). On a new
  // table there are none: it is recorded as holding this release's layout before anything is written.
  const { runPendingMigrations } = await import('./migrations.ts');
  await runPendingMigrations(routes, (line) => console.log(line));
  const first = await bootstrapFirstOrganisation();
  const tableEndpoint = endpoint;
  services = await startLocalServices(endpoint);
  server = createGateway({ routes, log: (line) => console.log(line) });
  server.once('error', fail);
  server.listen(cfg.port, cfg.host, () => {
    const bound = server?.address();
    const address = typeof bound === 'object' && bound ? bound.address : cfg.host;
    // Loopback, or every interface: reached as localhost from here.
    const viaLocalhost = ['127.0.0.1', '::1', '0.0.0.0', '::'].includes(address);
    const host = viaLocalhost ? 'localhost' : address.includes(':') ? `[${address}]` : address;
    const base = `http://${host}:${cfg.port}`;
    const loopback = /^(127\.|::1$)/.test(address);
    console.log(
      `Listening on ${address} port ${cfg.port}${loopback ? ' (this machine only: HOST=0.0.0.0 serves the network)' : ''}`,
    );
    console.log(`Sprint Ticketing Service on ${base}/api/v1`);
    if (first) {
      console.log(
        '\nCreated organisation "%s" with admin %s. Its API token (shown once):\n\n  %s\n',
        first.organisation.name,
        first.account.email,
        first.token,
      );
      console.log(`Try it:\n\n  curl -H "Authorization: Bearer ${first.token}" ${base}/api/v1/me\n`);
    } else console.log(tokenRegenerateHint(tableEndpoint, cfg.tableName));
  });
} catch (err) {
  fail(err);
}

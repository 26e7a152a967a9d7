import { App, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bundle,
  budget,
  buildAll,
  buildBundle,
  type LoadResult,
  loadAlone,
  run,
  sizeRefusal,
} from '../../tools/bench/bundles.ts';
import { runtimeEnvironment } from '../../infra/bundling.ts';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { randomUUID } from 'node:crypto';
import {
  allFunctionEntries,
  authorizerEntry,
  deliveryEntry,
  functionId,
  githubEventsEntry,
  migrateEntry,
} from '../../infra/functions.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { issueLinks } from '../../lib/db/github/github.ts';
import { insertDelivery, pendingDelivery } from '../../lib/db/webhooks/webhooks.ts';
import { githubSignature } from '../../lib/model/github.ts';
import { connectRepository } from '../../lib/services/github.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { createWebhook } from '../../lib/services/webhook-secrets.ts';
import { routes } from '../../lib/routes.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { startReceiver } from '../support/receiver.ts';
import { testSecretKey } from '../support/secret-key.ts';

/*
 * What a bundle is (it builds, loads alone, its size, what it holds) is checked here; how long its
 * init takes is not: a CPU-time ratio measured while the suite's other workers run depends on what
 * else the machine does. `npm run bench` holds the init budget, run alone (tools/bench/README.md).
 */
const entries = allFunctionEntries(routes);
const outRoot = mkdtempSync(join(tmpdir(), 'bundles-test-'));
const bundles = new Map<string, Bundle>();
const loads = new Map<string, LoadResult | Error>();

beforeAll(async () => {
  const built = await buildAll(outRoot);
  for (const b of built.bundles) bundles.set(b.entry, b);
  // Each load is a process of its own, mostly waiting for its start: two at a time.
  const queue = [...built.bundles];
  const loadNext = async (): Promise<void> => {
    const b = queue.shift();
    if (!b) return;
    loads.set(b.entry, await loadAlone(b).catch((err: Error) => err));
    return loadNext();
  };
  await Promise.all([loadNext(), loadNext()]);
}, 600_000);

afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

describe('every Lambda bundle', () => {
  it.each(entries)('%s loads on its own in an empty folder and exports a handler', (entry) => {
    const load = loads.get(entry);
    if (load instanceof Error) throw load;
    expect(load?.handler).toBe('function');
  });

  it.each(entries)(
    "%s loads no classic zod and no JSON Schema conversion at init: the schemas are zod's functional build",
    (entry) => {
      // The source map names every module that put code into what init loads (the whole bundle
      // but for /mcp's chunks, which the MCP SDK's classic zod comes with). lib/schemas/zod.ts says why.
      const { sources } = JSON.parse(readFileSync(bundles.get(entry)!.mapFile, 'utf8')) as { sources: string[] };
      expect(
        sources.filter((s) => /node_modules\/zod\/(v4\/classic|v4\/core\/(to-json-schema|json-schema-processors))\//.test(s)),
      ).toEqual([]);
    },
  );

  it.each(entries)(`%s is smaller than ${budget.maxBytes / 1024} KB, and so is each chunk it loads later`, (entry) => {
    const bundle = bundles.get(entry)!;
    // Usually the cause is classic zod (`import * as z from 'zod'`, or `import { z }`, which keeps
    // all of it, locales included): the schemas use 'zod/mini' (lib/schemas/zod.ts).
    expect(sizeRefusal(bundle)).toBeUndefined();
    expect(bundle.bytes).toBeLessThan(budget.maxBytes);
  });

  it('holds the GitHub receiver and the GitHub deliveries’ consumer to the same budget', () => {
    expect(entries).toEqual(expect.arrayContaining(['functions/github/receive.ts', githubEventsEntry]));
    for (const entry of ['functions/github/receive.ts', githubEventsEntry]) {
      expect(sizeRefusal(bundles.get(entry)!)).toBeUndefined();
      expect(bundles.get(entry)!.bytes).toBeLessThan(budget.maxBytes);
    }
  });

  it('splits the /mcp bundle: init loads the HTTP stack only, the MCP server and what a call runs load on use', () => {
    const mcp = bundles.get('functions/mcp.ts')!;
    expect(mcp.lazyChunks.map((c) => c.path)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^chunks\/server-/), expect.stringMatching(/^chunks\/domain-/)]),
    );
    // The stack without the MCP SDK, zod or the DynamoDB client.
    expect(mcp.bytes).toBeLessThan(100 * 1024);
  });
});

describe('the CDK stack', () => {
  // The MCP function's bundle has module replacements of its own (infra/bundling.ts: functionAlias).
  // A route function sits in a nested stack (infra/constructs/route-functions.ts), the authorizer
  // in the parent: `cdk synth` bundles both, and the nested template names the bundle's asset.
  it.each([
    [authorizerEntry, 'parent'],
    ['functions/mcp.ts', 'nested'],
  ] as const)(
    'bundles %s (in the %s stack) with the local esbuild, no Docker, byte for byte what the bench measures',
    async (entry, where) => {
      const app = new App({ builtinCloudFormationValidation: false });
      const stack = new Stack(app, 'Bundling');
      const scope = where === 'nested' ? new NestedStack(stack, 'AccountRoutes') : stack;
      const fn = new ServiceFunction(scope, 'Fn', {
        entry,
        logs: { retention: RetentionDays.ONE_DAY, removalPolicy: RemovalPolicy.DESTROY },
      });
      const assembly = app.synth();
      const template = (
        scope instanceof NestedStack
          ? JSON.parse(readFileSync(join(assembly.directory, scope.templateFile), 'utf8'))
          : assembly.getStackArtifact(stack.artifactId).template
      ) as {
        Resources: Record<string, { Properties: { Code: { S3Key: string } } }>;
      };
      const hash = template.Resources[scope.getLogicalId(fn.node.defaultChild as never)]!.Properties.Code.S3Key.replace(
        /\.zip$/,
        '',
      );
      const asset = join(assembly.directory, `asset.${hash}`);
      const deployed = readFileSync(join(asset, 'index.mjs'));
      // What the bench and the size checks above measure (built with the others, buildAll).
      const measuredBundle = bundles.get(entry)!;
      expect(functionId(authorizerEntry)).toBe('Authorizer');
      // A split bundle (infra/bundling.ts: splitEntries) is its `index.mjs` and its chunks. A chunk's
      // name carries a hash that also covers its source map, whose paths are relative to the folder
      // it was built in: the code must be byte for byte the same, the names' hashes may differ.
      const code = (dir: string) =>
        (readdirSync(dir, { recursive: true }) as string[])
          .filter((f) => f.endsWith('.mjs'))
          .map((f) => readFileSync(join(dir, f), 'utf8').replace(/-[A-Z0-9]{8}(?=\.mjs)/g, ''))
          .sort();
      expect(code(asset)).toEqual(code(dirname(measuredBundle.file)));
      if (measuredBundle.lazyChunks.length === 0) expect(deployed.equals(readFileSync(measuredBundle.file))).toBe(true);
      else expect(code(asset).length).toBeGreaterThan(3);
      expect(readFileSync(join(assembly.directory, `asset.${hash}`, 'index.mjs.map')).length).toBeGreaterThan(0);
    },
    120_000,
  );
});

describe('stack traces from a bundle', () => {
  it('name the TypeScript sources, lines and functions as Node does with --enable-source-maps, which is off (the map is read when first needed)', async () => {
    const bundle = await buildBundle('test/support/bundle-throws.ts', join(outRoot, 'throws'));
    const dir = mkdtempSync(join(tmpdir(), 'bundle-throws-'));
    try {
      copyFileSync(bundle.file, join(dir, 'index.mjs'));
      copyFileSync(bundle.mapFile, join(dir, 'index.mjs.map'));
      // The same probe twice: as deployed, and with Node's own source maps in place of the bundle's.
      const probe =
        "const { handler } = await import(process.argv[1]); if (process.argv[2] === 'node') Error.prepareStackTrace = undefined; process.stdout.write(await handler());";
      const stackOf = async (how: 'bundle' | 'node') => {
        const env = {
          PATH: process.env.PATH ?? '',
          ...runtimeEnvironment,
          ...(how === 'node' ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        };
        const out = await run(
          process.execPath,
          ['--input-type=module', '-e', probe, pathToFileURL(join(dir, 'index.mjs')).href, how],
          { cwd: dir, env },
        );
        expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
        return out.stdout;
      };
      const stack = await stackOf('bundle');
      const frames = stack.split('\n');
      expect(frames[0]).toBe('Error: mapped');
      expect(frames[1]).toMatch(/^ {4}at failing \(\S*test\/support\/bundle-throws\.ts:6:9\)$/);
      expect(frames[2]).toMatch(/^ {4}at caller \(\S*test\/support\/bundle-throws\.ts:11:5\)$/);
      expect(stack).toBe(await stackOf('node'));
      expect(runtimeEnvironment).not.toHaveProperty('NODE_OPTIONS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the delivery function bundle', () => {
  // Runs the built bundle alone, as Lambda would, on one queue message (no KMS here: the local key).
  const RUN = `
const { handler } = await import(process.argv[1]);
const out = await handler(JSON.parse(process.argv[2]), { functionName: 'deliver', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 30000 });
process.stdout.write(JSON.stringify(out));
process.exit(0);
`;

  it('opens a secret sealed with the local key and signs a delivery that verifies with the secret shown at creation', async () => {
    const org = await newOrganisation();
    const receiver = await startReceiver('127.0.0.1');
    try {
      const caller = { orgId: org.orgId, accountId: org.admin.id, role: 'admin' as const, tokenHash: '' };
      const hook = await createWebhook(caller, { url: receiver.url, events: ['*'] });
      receiver.secret = hook.secret;
      const now = new Date().toISOString();
      await insertDelivery(
        pendingDelivery({
          id: 'msg_bundle',
          orgId: org.orgId,
          webhookId: hook.id,
          event: 'issue.created',
          payload: '{"type":"issue.created","data":{}}',
          at: now,
        }),
      );
      const bundle = bundles.get(deliveryEntry)!;
      const dir = join(outRoot, 'deliver-alone');
      mkdirSync(dir, { recursive: true });
      copyFileSync(bundle.file, join(dir, 'index.mjs'));
      const message = {
        orgId: org.orgId,
        webhookId: hook.id,
        deliveryId: 'msg_bundle',
        attempt: 1,
        firstAttemptAt: null,
        notBefore: 0,
      };
      const event = { Records: [{ messageId: 'm-1', body: JSON.stringify(message) }] };
      const env = {
        PATH: process.env.PATH ?? '',
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        TABLE_NAME: process.env.TABLE_NAME,
        AWS_REGION: 'local',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
        WEBHOOK_ALLOW_LOOPBACK: '1',
        // Only a failed attempt re-queues: a successful one never sends to this (unreachable) queue.
        DELIVERY_QUEUE_URL: 'http://127.0.0.1:9/000000000000/deliveries',
        WEBHOOK_SECRET_LOCAL_KEY: testSecretKey,
      };
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', RUN, pathToFileURL(join(dir, 'index.mjs')).href, JSON.stringify(event)],
        {
          cwd: dir,
          env,
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(stdout)).toEqual({ batchItemFailures: [] });
      expect(receiver.requests.map((r) => ({ id: r.id, verified: r.verified }))).toEqual([{ id: 'msg_bundle', verified: true }]);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe('the migration function bundle', () => {
  // Runs the built bundle alone, as Lambda would, on CloudFormation's request of a deploy.
  const RUN = `
const { handler } = await import(process.argv[1]);
const context = {
  functionName: 'migrate',
  awsRequestId: 'r-migrate',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:migrate',
  getRemainingTimeInMillis: () => 900000,
};
const out = await handler(JSON.parse(process.argv[2]), context);
process.stdout.write(JSON.stringify(out));
process.exit(0);
`;

  it('answers CloudFormation at once, then runs the pending migrations (none on the suite’s table, made by this release)', async () => {
    const answers: { method: string; body: string }[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        answers.push({ method: req.method ?? '', body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const bundle = bundles.get(migrateEntry)!;
      const dir = join(outRoot, 'migrate-alone');
      mkdirSync(dir, { recursive: true });
      copyFileSync(bundle.file, join(dir, 'index.mjs'));
      const event = {
        RequestType: 'Update',
        ResponseURL: `http://127.0.0.1:${port}/response`,
        StackId: 'stack',
        RequestId: 'request-1',
        LogicalResourceId: 'MigrationsRunOnDeploy',
        PhysicalResourceId: 'data-migrations',
      };
      const env = {
        PATH: process.env.PATH ?? '',
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        TABLE_NAME: process.env.TABLE_NAME,
        AWS_REGION: 'local',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
      };
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', RUN, pathToFileURL(join(dir, 'index.mjs')).href, JSON.stringify(event)],
        { cwd: dir, env },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(stdout)).toEqual({ state: 'done', ran: [] });
      expect(answers).toHaveLength(1);
      expect(answers[0]!.method).toBe('PUT');
      expect(JSON.parse(answers[0]!.body)).toMatchObject({
        Status: 'SUCCESS',
        RequestId: 'request-1',
        PhysicalResourceId: 'data-migrations',
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});

describe('the GitHub receiver and consumer bundles', () => {
  // Runs a built bundle alone, as Lambda would, on one event; what it answered on standard output.
  const RUN = `
const { handler } = await import(process.argv[1]);
const out = await handler(JSON.parse(process.argv[2]), { functionName: 'github', awsRequestId: 'r-github', getRemainingTimeInMillis: () => 60000 });
process.stdout.write(JSON.stringify(out));
process.exit(0);
`;
  const runAlone = async (entry: string, event: unknown): Promise<unknown> => {
    const dir = join(outRoot, `${functionId(entry)}-alone`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(bundles.get(entry)!.file, join(dir, 'index.mjs'));
    const env = {
      PATH: process.env.PATH ?? '',
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? '',
      TABLE_NAME: process.env.TABLE_NAME ?? '',
      AWS_REGION: 'local',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      // No KMS here: the secret was sealed with the suite's local key.
      WEBHOOK_SECRET_LOCAL_KEY: testSecretKey,
    };
    const out = await run(
      process.execPath,
      ['--input-type=module', '-e', RUN, pathToFileURL(join(dir, 'index.mjs')).href, JSON.stringify(event)],
      { cwd: dir, env },
    );
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(out.stdout) as unknown;
  };

  it('the receiver opens the repository’s secret, stores a signed delivery and refuses a forged one; the consumer links the issue it names', async () => {
    const org = await newOrganisation();
    const caller = { orgId: org.orgId, accountId: org.admin.id, role: 'admin' as const, tokenHash: '' };
    const project = await createProject(caller, { name: 'Bundled', prefix: randomPrefix() });
    const issue = await createIssue(caller, { projectId: project.id, sprintId: null }, { title: 'Link me' });
    const owner = 'bundle-org';
    const name = `repo-${org.orgId}-${project.id}`;
    const { secret } = await connectRepository(caller, project.id, { repository: `${owner}/${name}` });
    const branch = `${project.prefix}-${issue.id}-from-a-bundle`;
    const body = JSON.stringify({
      ref: branch,
      ref_type: 'branch',
      master_branch: 'main',
      repository: {
        name,
        full_name: `${owner}/${name}`,
        owner: { login: owner },
        html_url: `https://github.com/${owner}/${name}`,
        pushed_at: new Date().toISOString(),
      },
      sender: { login: 'grace' },
    });
    const deliveryId = randomUUID();
    const event = (signature: string) => ({
      resource: '/api/v1/integrations/github',
      path: '/api/v1/integrations/github',
      httpMethod: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'GitHub-Hookshot/bundle',
        'X-GitHub-Event': 'create',
        'X-GitHub-Delivery': deliveryId,
        'X-Hub-Signature-256': signature,
      },
      body,
      isBase64Encoded: false,
      requestContext: { requestId: 'r-github', identity: { sourceIp: '127.0.0.1' } },
    });

    const receiver = 'functions/github/receive.ts';
    const forged = (await runAlone(receiver, event(`sha256=${'0'.repeat(64)}`))) as { statusCode: number };
    expect(forged.statusCode).toBe(401);
    const accepted = (await runAlone(receiver, event(githubSignature(secret!, body)))) as { statusCode: number; body: string };
    expect({ status: accepted.statusCode, body: JSON.parse(accepted.body) }).toEqual({
      status: 202,
      body: { status: 'accepted' },
    });

    // The stream record of the stored delivery, as Lambda hands it to the consumer.
    const key = keys.githubDelivery(deliveryId);
    const { Item: stored } = await db.send(new GetCommand({ TableName: tableName(), Key: key }));
    expect(stored).toBeDefined();
    const record = {
      eventID: '1',
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      dynamodb: {
        Keys: marshall(key),
        NewImage: marshall(stored!),
        SequenceNumber: '100000000000000000001',
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
    expect(await runAlone(githubEventsEntry, { Records: [record] })).toEqual({ batchItemFailures: [] });
    const links = await issueLinks(org.orgId, project.id, issue.id);
    expect(links.map((l) => ({ kind: l.kind, ref: l.ref }))).toEqual([{ kind: 'branch', ref: branch }]);
  }, 60_000);
});

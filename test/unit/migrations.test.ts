import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkRegistry,
  freshRecord,
  type MigrationRecord,
  pendingMigrations,
  registryVersion,
} from '../../lib/model/migrations.ts';
import { answerCloudFormation, isCustomResourceRequest } from '../../lib/migrations/cloudformation.ts';
import { invokeAsync } from '../../lib/migrations/continue.ts';
import { migrations, migrationsVersion } from '../../lib/migrations/index.ts';

describe('the migration registry', () => {
  it('lists the three upgrade commands first, numbered in order', () => {
    expect(migrations.map((m) => m.name)).toEqual([
      '0001-token-names',
      '0002-comment-pointers',
      '0003-issue-indexes',
      '0004-workflow-states',
      '0005-comment-pointer-copies',
    ]);
    expect(migrationsVersion).toBe(
      '0001-token-names,0002-comment-pointers,0003-issue-indexes,0004-workflow-states,0005-comment-pointer-copies',
    );
    for (const m of migrations) expect(m.description.length).toBeGreaterThan(10);
  });

  it('refuses a malformed name, a number out of order and a number used twice', () => {
    expect(() => checkRegistry([{ name: '0001-a' }, { name: '0002-b' }])).not.toThrow();
    expect(() => checkRegistry([{ name: 'token-names' }])).toThrow(/NNNN-words/);
    expect(() => checkRegistry([{ name: '0001-A' }])).toThrow(/NNNN-words/);
    expect(() => checkRegistry([{ name: '0002-a' }, { name: '0001-b' }])).toThrow(/out of order/);
    expect(() => checkRegistry([{ name: '0001-a' }, { name: '0001-b' }])).toThrow(/out of order/);
  });

  it('runs the ones not done, in the registry’s order, a failed one again', () => {
    const registry = [{ name: '0001-a' }, { name: '0002-b' }, { name: '0003-c' }, { name: '0004-d' }];
    const records = new Map<string, MigrationRecord>([
      ['0001-a', { ...freshRecord('0001-a'), status: 'done' }],
      ['0002-b', { ...freshRecord('0002-b'), status: 'failed', error: 'x' }],
      ['0004-d', { ...freshRecord('0004-d'), status: 'running', cursor: { org: 3 } }],
    ]);
    expect(pendingMigrations(registry, records).map((m) => m.name)).toEqual(['0002-b', '0003-c', '0004-d']);
    expect(registryVersion(registry)).toBe('0001-a,0002-b,0003-c,0004-d');
  });
});

/** A loopback server answering `status` to every request, keeping what it received. */
async function loopback(status: number) {
  const received: { req: IncomingMessage; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ req, body });
      res.writeHead(status).end(status === 202 || status === 200 ? '' : '{"message":"no"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('continuing a run', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('queues an invocation of the function (InvocationType Event), signed for Lambda with the role’s credentials', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'session');
    const server = await loopback(202);
    try {
      const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:sprint-ticketing-dev-migrations';
      await invokeAsync(arn, { continued: 3 }, server.url);
      expect(server.received).toHaveLength(1);
      const [{ req, body }] = server.received as [{ req: IncomingMessage; body: string }];
      expect(req.method).toBe('POST');
      expect(req.url).toBe(`/2015-03-31/functions/${encodeURIComponent(arn)}/invocations`);
      expect(req.headers['x-amz-invocation-type']).toBe('Event');
      expect(req.headers['x-amz-security-token']).toBe('session');
      expect(req.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/lambda\/aws4_request, SignedHeaders=[a-z0-9;-]*x-amz-invocation-type[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      expect(JSON.parse(body)).toEqual({ continued: 3 });
    } finally {
      await server.close();
    }
  });

  it('throws when Lambda refuses it', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    const server = await loopback(403);
    try {
      await expect(invokeAsync('arn:aws:lambda:eu-west-1:1:function:f', {}, server.url)).rejects.toThrow(/refused.*403/);
    } finally {
      await server.close();
    }
  });
});

describe('the deploy’s custom resource', () => {
  it('is answered SUCCESS at the pre-signed URL, with the request’s ids and a stable physical id', async () => {
    const server = await loopback(200);
    try {
      const request = {
        RequestType: 'Update',
        ResponseURL: `${server.url}/cfn-response?X-Amz-Signature=abc`,
        StackId: 'arn:aws:cloudformation:eu-west-1:1:stack/S/1',
        RequestId: 'req-1',
        LogicalResourceId: 'MigrationsRunOnDeploy',
      };
      expect(isCustomResourceRequest(request)).toBe(true);
      expect(isCustomResourceRequest({ continued: 1 })).toBe(false);
      await answerCloudFormation(request as never);
      const [{ req, body }] = server.received as [{ req: IncomingMessage; body: string }];
      expect(req.method).toBe('PUT');
      expect(req.url).toBe('/cfn-response?X-Amz-Signature=abc');
      expect(JSON.parse(body)).toMatchObject({
        Status: 'SUCCESS',
        PhysicalResourceId: 'data-migrations',
        StackId: request.StackId,
        RequestId: 'req-1',
        LogicalResourceId: 'MigrationsRunOnDeploy',
      });
    } finally {
      await server.close();
    }
  });
});

describe('a failed migration, reported', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('counts MigrationFailures (the metric the stack alarms on) and logs the record as an error', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    vi.stubEnv('STAGE', 'dev');
    vi.resetModules();
    const { defaultReporter } = await import('../../lib/migrations/runner.ts');
    const { publishMetrics } = await import('../../lib/http/metrics.ts');
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      defaultReporter.failed({ ...freshRecord('0002-comment-pointers'), status: 'failed', error: 'Error: boom' });
      publishMetrics();
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const json = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
    const emf = json.find((l) => l._aws)!;
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'SprintTicketing',
      Metrics: [{ Name: 'MigrationFailures', Unit: 'Count' }],
    });
    expect(emf).toMatchObject({ MigrationFailures: 1, service: 'sprint-ticketing', stage: 'dev' });
    const log = json.find((l) => l.level === 'ERROR')!;
    expect(log.message).toMatch(/^migration failed/);
    expect(log.migration).toMatchObject({ name: '0002-comment-pointers', status: 'failed', error: 'Error: boom' });
  });
});

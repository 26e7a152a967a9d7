import { lambdaContext } from '../../tools/local/gateway.ts';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** EMF lines a handler module writes to standard output, with metrics turned on for it. */
async function emfOf(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

const context = { functionName: 'test', awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe('business metrics (Powertools, EMF)', () => {
  beforeEach(() => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('STAGE', 'dev');
    vi.resetModules();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('counts each route response once, by route and by status, in one line per invocation', async () => {
    const { handler } = (await import('../../functions/me/get.ts')) as { handler: (e: unknown, c: Context) => Promise<unknown> };
    const event = {
      httpMethod: 'GET',
      resource: '/api/v1/me',
      path: '/api/v1/me',
      headers: {},
      requestContext: { requestId: 'x' },
      body: null,
    } as unknown as APIGatewayProxyEvent;
    const lines = await emfOf(() => handler(event, context));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    const directive = line!._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe('SprintTicketing');
    expect(directive.Metrics).toEqual([{ Name: 'Requests', Unit: 'Count' }]);
    expect(directive.Dimensions).toEqual(
      expect.arrayContaining([
        expect.arrayContaining(['service', 'stage', 'route']),
        expect.arrayContaining(['service', 'stage', 'status']),
      ]),
    );
    expect(line).toMatchObject({
      Requests: 1,
      route: 'GET /api/v1/me',
      status: '401',
      stage: 'dev',
      service: 'sprint-ticketing',
    });
  });

  it('counts a refused token in the authorizer, before any DynamoDB call', async () => {
    const { handler } = (await import('../../functions/authorizer.ts')) as unknown as {
      handler: (e: unknown, context: unknown) => Promise<unknown>;
    };
    const lines = await emfOf(() =>
      handler(
        { type: 'REQUEST', methodArn: 'arn', headers: { Authorization: 'Bearer junk' } },
        lambdaContext('authorizer'),
      ).catch((err: Error) => {
        expect(err.message).toBe('Unauthorized');
      }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ RefusedTokens: 1, stage: 'dev' });
  });

  it('writes nothing when turned off (the tests)', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const { handler } = (await import('../../functions/authorizer.ts')) as unknown as {
      handler: (e: unknown, context: unknown) => Promise<unknown>;
    };
    const lines = await emfOf(() =>
      handler({ type: 'REQUEST', methodArn: 'arn', headers: {} }, lambdaContext('authorizer')).catch(() => undefined),
    );
    expect(lines).toEqual([]);
  });
});

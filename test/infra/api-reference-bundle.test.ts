import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { repoRoot } from '../../infra/paths.ts';
import { bundledAssetFolder, referenceAssets } from '../../lib/api-reference/assets.ts';
import { createGateway } from '../../tools/local/gateway.ts';
import { routes } from '../../lib/routes.ts';
import { apiClient } from '../support/api.ts';

/**
 * The `/api-docs` function as `cdk synth` writes it: its bundle folder holds `index.mjs` and,
 * beside it, the page's assets (infra/bundling.ts: functionFiles). Copied alone into an empty
 * folder (as Lambda unpacks it, no repository around), it serves the page and every asset through
 * the local gateway.
 */
const ENTRY = 'functions/api-reference.ts';
/** Lambda's limit on a synchronous invocation's response (the whole JSON result). */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
const referenceRoutes = routes.filter((r) => r.handler === ENTRY);

let deployed: string;
let baseUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = new App({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Bundling');
  const fn = new ServiceFunction(stack, 'Fn', {
    entry: ENTRY,
    logs: { retention: RetentionDays.ONE_DAY, removalPolicy: RemovalPolicy.DESTROY },
  });
  const assembly = app.synth();
  const template = assembly.getStackArtifact(stack.artifactId).template as {
    Resources: Record<string, { Properties: { Code: { S3Key: string } } }>;
  };
  const key = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)]!.Properties.Code.S3Key;
  deployed = mkdtempSync(join(tmpdir(), 'api-reference-bundle-'));
  cpSync(join(assembly.directory, `asset.${key.replace(/\.zip$/, '')}`), deployed, { recursive: true });
  rmSync(assembly.directory, { recursive: true, force: true });

  const server = createGateway({
    routes: routes.map((r) => (r.handler === ENTRY ? { ...r, handler: join(deployed, 'index.mjs') } : r)),
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
}, 120_000);

afterAll(async () => {
  await close?.();
  if (deployed) rmSync(deployed, { recursive: true, force: true });
});

describe('the /api-docs bundle that cdk synth writes', () => {
  it('holds each asset of the page beside index.mjs, byte for byte, and no renderer in index.mjs itself', () => {
    for (const asset of referenceAssets) {
      const copy = join(deployed, bundledAssetFolder, asset.name);
      expect(existsSync(copy), copy).toBe(true);
      expect(readFileSync(copy).equals(readFileSync(resolve(repoRoot, asset.source))), asset.name).toBe(true);
    }
    const sources = (JSON.parse(readFileSync(join(deployed, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;
    expect(sources.filter((s) => s.includes('swagger-ui'))).toEqual([]);
    expect(statSync(join(deployed, 'index.mjs')).size).toBeLessThan(20 * 1024);
  });

  it('serves the page and every asset from its own folder, as text, revalidated by ETag', async () => {
    const client = apiClient(baseUrl);
    const page = await client.get('/api-docs', { token: null, headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const asset of referenceAssets) {
      expect(page.text, `the page loads ${asset.name}`).toContain(`"api-docs/assets/${asset.name}"`);
      const res = await client.get(`/api-docs/assets/${asset.name}`, { token: null, headers: { Accept: '*/*' } });
      expect(res.status, asset.name).toBe(200);
      expect(res.headers.get('content-type')).toBe(asset.contentType);
      expect(res.text === readFileSync(resolve(repoRoot, asset.source), 'utf8'), `${asset.name} body`).toBe(true);
      const again = await client.get(`/api-docs/assets/${asset.name}`, {
        token: null,
        headers: { 'If-None-Match': res.headers.get('etag') ?? '' },
      });
      expect(again.status, asset.name).toBe(304);
    }
  });

  it.each(referenceRoutes.map((r) => r.path))('answers %s within Lambda’s 6 MB response limit', async (path) => {
    const { handler } = (await import(pathToFileURL(join(deployed, 'index.mjs')).href)) as {
      handler: (event: Partial<APIGatewayProxyEvent>) => Promise<APIGatewayProxyResult>;
    };
    const result = await handler({ resource: path, path, httpMethod: 'GET', headers: {} });
    expect(result.statusCode).toBe(200);
    expect(result.isBase64Encoded ?? false).toBe(false);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  });
});

import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { inflateSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { handler as referenceHandler } from '../../functions/api-reference.ts';
import { createGateway } from '../../tools/local/gateway.ts';
import { outputs } from '../../tools/openapi/write.ts';
import { routes } from '../../lib/routes.ts';
import { MINIMUM_COMPRESSION_SIZE } from '../../lib/http/gateway-compression.ts';
import { apiClient, newOrganisation, randomPrefix, rawGet, useGateway } from '../support/api.ts';
import { allowUndeclaredRoutes, ContractViolation } from '../support/contract.ts';

const gateway = useGateway();

describe('GET /api-docs/ (a trailing slash)', () => {
  it('redirects to the page at /api-docs (301), which answers', async () => {
    allowUndeclaredRoutes();
    const res = await fetch(`${gateway.baseUrl}/api-docs/`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/api-docs');
    const followed = await fetch(`${gateway.baseUrl}/api-docs/`);
    expect(followed.url).toBe(`${gateway.baseUrl}/api-docs`);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it("keeps the stage's prefix behind API Gateway's own host", async () => {
    const event = JSON.parse(readFileSync('events/getApiReference.json', 'utf8'));
    const answer = await referenceHandler({
      ...event,
      path: '/api-docs/',
      requestContext: { ...event.requestContext, path: '/prod/api-docs/' },
    });
    expect(answer).toMatchObject({ statusCode: 301, headers: { Location: '/prod/api-docs' } });
  });
});

describe('GET /api-docs/v1/swagger.yaml and .json', () => {
  it('serves the committed document as YAML without a token, cacheable, with no DynamoDB call', async () => {
    const res = await apiClient(gateway.baseUrl).get('/api-docs/v1/swagger.yaml', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.dbCalls).toBe(0);
    expect(res.text).toBe(readFileSync(outputs.yaml, 'utf8'));
  });

  it('serves the same document as JSON, and ignores a bad token', async () => {
    const client = apiClient(gateway.baseUrl, 'stk_not-a-token');
    const json = await client.get('/api-docs/v1/swagger.json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const yaml = await client.get('/api-docs/v1/swagger.yaml');
    expect(json.body).toEqual(parse(yaml.text));
    expect(json.headers.get('etag')).not.toBe(yaml.headers.get('etag'));
    const ids = Object.values(json.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(ids.sort()).toEqual(routes.map((r) => r.operation.id).sort());
  });

  it('answers 304 with no body to a matching If-None-Match, and the document to a stale one', async () => {
    const client = apiClient(gateway.baseUrl);
    const first = await client.get('/api-docs/v1/swagger.yaml');
    const etag = first.headers.get('etag') ?? '';
    const again = await client.get('/api-docs/v1/swagger.yaml', { headers: { 'If-None-Match': `"older", ${etag}` } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const stale = await client.get('/api-docs/v1/swagger.yaml', { headers: { 'If-None-Match': '"older"' } });
    expect(stale.status).toBe(200);
  });
});

describe('GET /api-docs/v1/swagger.yaml and .json, compressed by API Gateway', () => {
  const yaml = () => readFileSync(outputs.yaml, 'utf8');

  it('arrives gzip-compressed to a client that asks for gzip, and its bytes decode to exactly the document', async () => {
    const plain = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.yaml');
    for (const accept of ['gzip', 'gzip, deflate, br', 'GZIP;q=1.0, identity;q=0.5']) {
      const res = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.yaml', { 'Accept-Encoding': accept });
      expect({ accept, status: res.status, coding: res.headers['content-encoding'] }).toEqual({
        accept,
        status: 200,
        coding: 'gzip',
      });
      expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
      expect(res.headers.etag).toBe(plain.headers.etag);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.bytes.length).toBeLessThan(Buffer.byteLength(yaml()) / 4);
      expect(gunzipSync(res.bytes).toString('utf8') === yaml(), accept).toBe(true);
    }
    const json = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.json', { 'Accept-Encoding': 'deflate, gzip;q=0.5' });
    expect(json.headers['content-encoding']).toBe('deflate');
    expect(JSON.parse(inflateSync(json.bytes).toString('utf8'))).toEqual(parse(yaml()));
  });

  it('arrives as text without Accept-Encoding, with identity, gzip at q=0, or a first choice API Gateway lacks', async () => {
    for (const accept of [
      undefined,
      'identity',
      'gzip;q=0',
      'gzip;q=0, deflate;q=0',
      'br',
      'br, gzip',
      'br;q=1, gzip;q=0.9',
      '*',
      'zstd',
    ]) {
      const res = await rawGet(
        gateway.baseUrl,
        '/api-docs/v1/swagger.yaml',
        accept === undefined ? {} : { 'Accept-Encoding': accept },
      );
      expect({ accept, status: res.status, coding: res.headers['content-encoding'] }).toEqual({
        accept,
        status: 200,
        coding: undefined,
      });
      expect(res.bytes.toString('utf8') === yaml(), String(accept)).toBe(true);
    }
  });

  it('answers 304 with no body to a matching If-None-Match, compressed or not', async () => {
    const first = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.yaml', { 'Accept-Encoding': 'gzip' });
    for (const accept of ['gzip', 'identity']) {
      const again = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.yaml', {
        'Accept-Encoding': accept,
        'If-None-Match': first.headers.etag!,
      });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers['content-encoding']).toBeUndefined();
      expect(again.headers.etag).toBe(first.headers.etag);
    }
  });

  it('leaves an answer under the minimum size as it is, even to a client that asks for gzip', async () => {
    const res = await rawGet(gateway.baseUrl, '/api-docs/v1/swagger.yaml?format=x', { 'Accept-Encoding': 'gzip' });
    expect(res.status).toBe(422);
    expect(res.bytes.length).toBeLessThan(MINIMUM_COMPRESSION_SIZE);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.bytes.toString('utf8'))).toHaveProperty('errors');
  });
});

describe('the contract check on e2e responses', () => {
  /** The real route table, but the project routes of `id` go to a handler that drifted from the document. */
  async function driftedGateway() {
    const drifted = routes.map((r) =>
      r.path === '/api/v1/projects/{project_id}' && (r.method === 'GET' || r.method === 'DELETE')
        ? { ...r, handler: 'test/e2e/fixtures/drifted-project.ts' }
        : r,
    );
    const server = createGateway({ routes: drifted, exposeDbCalls: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      baseUrl,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  it('fails the request whose response body drifted from its schema, and the one with an undeclared status', async () => {
    const org = await newOrganisation();
    const drifted = await driftedGateway();
    try {
      const client = apiClient(drifted.baseUrl, org.admin.token);
      const created = await client.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } });
      expect(created.status).toBe(201);
      const get = client.get(`/api/v1/projects/${created.body.id}`);
      await expect(get).rejects.toThrow(ContractViolation);
      await expect(get).rejects.toThrow(/getProject 200: body must have required property 'name'/);
      await expect(get).rejects.toThrow(/getProject 200: body must NOT have additional properties \(title\)/);
      await expect(client.delete(`/api/v1/projects/${created.body.id}`)).rejects.toThrow(
        /deleteProject answered 409, which it does not declare/,
      );
    } finally {
      await drifted.close();
    }
  });

  it('fails a request to a route the document lacks, unless the test declares it expects unknown routes', async () => {
    const org = await newOrganisation();
    const client = apiClient(gateway.baseUrl, org.admin.token);
    await expect(client.get('/api/v1/nothing-here')).rejects.toThrow(
      /GET \/api\/v1\/nothing-here is not an operation of the document/,
    );
    allowUndeclaredRoutes();
    const res = await client.get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MINIMUM_COMPRESSION_SIZE } from '../../lib/http/gateway-compression.ts';
import { orgWithClients, randomPrefix, rawGet, useGateway } from '../support/api.ts';

const gateway = useGateway();

describe("API Gateway's compression of every answer (minimumCompressionSize)", () => {
  it('compresses a large list page for a client that asks for gzip, and not one that does not', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const auth = { Authorization: `Bearer ${org.admin.token}` };
    const empty = await rawGet(gateway.baseUrl, '/api/v1/projects', { ...auth, 'Accept-Encoding': 'gzip' });
    expect(empty.status).toBe(200);
    expect(empty.bytes.length).toBeLessThan(MINIMUM_COMPRESSION_SIZE);
    expect(empty.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(empty.bytes.toString('utf8'))).toEqual([]);

    for (let i = 0; i < 4; i++) {
      const created = await admin.post('/api/v1/projects', {
        project: { name: `Project ${i}`, prefix: randomPrefix(), description: `A project of the list. `.repeat(40) },
      });
      expect(created.status).toBe(201);
    }
    const plain = await rawGet(gateway.baseUrl, '/api/v1/projects', auth);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(4 * MINIMUM_COMPRESSION_SIZE);
    const page = JSON.parse(plain.bytes.toString('utf8'));
    expect(page).toHaveLength(4);

    const gzipped = await rawGet(gateway.baseUrl, '/api/v1/projects', { ...auth, 'Accept-Encoding': 'gzip, deflate, br' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toBe(plain.headers['content-type']);
    expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(JSON.parse(gunzipSync(gzipped.bytes).toString('utf8'))).toEqual(page);

    const refused = await rawGet(gateway.baseUrl, '/api/v1/projects', { ...auth, 'Accept-Encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.bytes.toString('utf8'))).toEqual(page);
  });

  it("compresses the API reference's largest asset, which says that it varies by Accept-Encoding", async () => {
    const path = '/api-docs/assets/swagger-ui-bundle.js';
    const plain = await rawGet(gateway.baseUrl, path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await rawGet(gateway.baseUrl, path, { 'Accept-Encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('Accept-Encoding');
    expect(gzipped.headers.etag).toBe(plain.headers.etag);
    expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(gunzipSync(gzipped.bytes).equals(plain.bytes)).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compressesAnswer, gatewayCoding, MINIMUM_COMPRESSION_SIZE } from '../../lib/http/gateway-compression.ts';
import served from '../../lib/openapi/served.json' with { type: 'json' };
import { outputs } from '../../tools/openapi/write.ts';

describe("gatewayCoding: API Gateway's coding for an Accept-Encoding", () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['*', 'identity'],
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    ['GZip', 'gzip'],
    ['deflate', 'deflate'],
    ['gzip, deflate, br', 'gzip'],
    ['deflate, gzip', 'deflate'],
    ['br', 'identity'],
    ['br, gzip', 'identity'],
    ['zstd, gzip;q=0.9', 'identity'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.5, deflate;q=0.8', 'deflate'],
    ['gzip;q=0', 'identity'],
    ['gzip ; q=0.0, deflate', 'deflate'],
    ['gzip;q=0, deflate;q=0', 'identity'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=abc, deflate;q=0.1', 'deflate'],
    ['identity, gzip;q=0.5', 'identity'],
  ] as const)('%j: %s', (header, expected) => {
    expect(gatewayCoding(header)).toBe(expected);
  });
});

describe('compressesAnswer', () => {
  it('compresses from MINIMUM_COMPRESSION_SIZE bytes on, not one byte below', () => {
    expect(compressesAnswer('gzip', MINIMUM_COMPRESSION_SIZE, {})).toBe('gzip');
    expect(compressesAnswer('gzip', MINIMUM_COMPRESSION_SIZE - 1, {})).toBeUndefined();
    expect(compressesAnswer('deflate', 5 * 1024 * 1024, {})).toBe('deflate');
  });

  it('leaves a body with a Content-Encoding of its own as it is, and one for a client that asks for none', () => {
    expect(compressesAnswer('gzip', 100_000, { 'content-encoding': 'br' })).toBeUndefined();
    expect(compressesAnswer('gzip', 100_000, { 'Content-Encoding': 'gzip' })).toBeUndefined();
    expect(compressesAnswer(undefined, 100_000, {})).toBeUndefined();
    expect(compressesAnswer('br', 100_000, {})).toBeUndefined();
  });
});

describe('the OpenAPI document shipped in the bundle (lib/openapi/served.json)', () => {
  it('is brotli bytes that decode to exactly the committed document, at a small fraction of its size', () => {
    const yaml = readFileSync(outputs.yaml, 'utf8');
    const bytes = Buffer.from(served.compressed.yaml, 'base64');
    expect(brotliDecompressSync(bytes).toString('utf8') === yaml).toBe(true);
    expect(bytes.length).toBeLessThan(Buffer.byteLength(yaml) / 10);
    const json = brotliDecompressSync(Buffer.from(served.compressed.json, 'base64')).toString('utf8');
    expect(JSON.parse(json)).toEqual(parse(yaml));
  });
});

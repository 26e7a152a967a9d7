import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { preferredCoding } from '../../lib/http/content-encoding.ts';
import { documentEtag, encodedDocument, etags, servedDocument } from '../../lib/openapi/documents.ts';
import { outputs } from '../../tools/openapi/write.ts';

describe('preferredCoding (Accept-Encoding)', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['GZIP, BR', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.8, br;q=0.9', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['br; q=0.0, gzip ; q=0', undefined],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['*;q=0.1, gzip', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['gzip;q=abc, br;q=0', undefined],
  ] as const)('%j: %s', (header, expected) => {
    expect(preferredCoding(header)).toBe(expected);
  });

  it('chooses only among the codings offered', () => {
    expect(preferredCoding('br, gzip', ['gzip'])).toBe('gzip');
    expect(preferredCoding('br', ['gzip'])).toBeUndefined();
  });
});

describe('the compressed OpenAPI document (lib/openapi/served.ts)', () => {
  it('opens, in each coding, to exactly the document served as text and committed as YAML', () => {
    const yaml = readFileSync(outputs.yaml, 'utf8');
    expect(servedDocument('yaml')).toBe(yaml);
    for (const format of ['yaml', 'json'] as const) {
      const text = servedDocument(format);
      const br = Buffer.from(encodedDocument(format, 'br'), 'base64');
      const gzip = Buffer.from(encodedDocument(format, 'gzip'), 'base64');
      expect(brotliDecompressSync(br).toString('utf8') === text, `${format} br`).toBe(true);
      expect(gunzipSync(gzip).toString('utf8') === text, `${format} gzip`).toBe(true);
      // Worth shipping: each a fraction of the text.
      expect(br.length).toBeLessThan(gzip.length);
      expect(gzip.length).toBeLessThan(Buffer.byteLength(text) / 5);
    }
  });

  it('has an ETag per coding: the document’s own, suffixed for compressed bytes', () => {
    expect(documentEtag('yaml', undefined)).toBe(etags.yaml);
    expect(documentEtag('yaml', 'br')).toBe(etags.yaml.replace(/"$/, '-br"'));
    expect(documentEtag('json', 'gzip')).toBe(etags.json.replace(/"$/, '-gzip"'));
    expect(new Set([etags.yaml, etags.json, documentEtag('yaml', 'br'), documentEtag('yaml', 'gzip')]).size).toBe(4);
  });
});

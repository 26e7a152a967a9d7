import { brotliDecompressSync } from 'node:zlib';
import served from './served.json' with { type: 'json' };

const { compressed, etags } = served;

export type DocumentFormat = keyof typeof compressed;

const opened = new Map<DocumentFormat, string>();

/**
 * The OpenAPI document as served (`npm run openapi` renders it at build time): shipped compressed,
 * so that the `/api-docs` bundle stays small and quick to load, and opened on first use, once per
 * container (a few milliseconds).
 */
export function servedDocument(format: DocumentFormat): string {
  let text = opened.get(format);
  if (text === undefined) {
    text = brotliDecompressSync(Buffer.from(compressed[format], 'base64')).toString('utf8');
    opened.set(format, text);
  }
  return text;
}

export { etags };

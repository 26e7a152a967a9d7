import { brotliDecompressSync } from 'node:zlib';
import { compressed, etags } from './served.ts';

export type DocumentFormat = keyof typeof compressed;
/** The codings the document is shipped in (`Content-Encoding`). */
export type DocumentCoding = keyof (typeof compressed)[DocumentFormat];

const opened = new Map<DocumentFormat, string>();

/**
 * The OpenAPI document as served (`npm run openapi` renders it at build time), uncompressed: it is
 * shipped compressed, so that the `/api-docs` bundle stays small and quick to load, and opened
 * for a client that accepts no compression on first use, once per container (a few milliseconds).
 */
export function servedDocument(format: DocumentFormat): string {
  let text = opened.get(format);
  if (text === undefined) {
    text = brotliDecompressSync(Buffer.from(compressed[format].br, 'base64')).toString('utf8');
    opened.set(format, text);
  }
  return text;
}

/** The document's bytes compressed with `coding` at build time, in base64: a Lambda answer's body as is. */
export function encodedDocument(format: DocumentFormat, coding: DocumentCoding): string {
  return compressed[format][coding];
}

/**
 * The ETag of the document in a coding: the document's own for the text as is, suffixed with the
 * coding for compressed bytes (`"<tag>-br"`), so that a cache never takes one for the other.
 */
export function documentEtag(format: DocumentFormat, coding: DocumentCoding | undefined): string {
  return coding === undefined ? etags[format] : etags[format].replace(/"$/, `-${coding}"`);
}

export { etags };

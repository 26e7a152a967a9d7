/** Pure rules of attachments (docs/attachments.md). */

/**
 * Types a browser would run or render as a page when opened from the bucket's origin (HTML, SVG,
 * JavaScript, XML): always downloaded (`Content-Disposition: attachment`), never shown inline.
 */
const RUNNABLE = new Set(['text/html', 'image/svg+xml', 'text/javascript', 'application/javascript', 'application/xml']);

/** Whether a file of this type is only ever handed out as a download. */
export const mustDownload = (contentType: string): boolean => RUNNABLE.has(contentType);

/**
 * The `Content-Disposition` a download answers with: `attachment` for what a browser would run,
 * `inline` for the rest (a screenshot opens in the tab), with the file name in both forms (ASCII
 * with anything else replaced, and RFC 5987 UTF-8).
 */
export function dispositionOf(name: string, contentType: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${mustDownload(contentType) ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A SHA-256 as S3 states it (base64 of the digest) from its hex form, and back. */
export const sha256Base64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
export const sha256Hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

/** What an MCP client is handed for a file: an image or a text it can read, or a link. */
export function mcpKindOf(contentType: string, size: number, inlineBytes: number): 'image' | 'text' | 'link' {
  if (size > inlineBytes) return 'link';
  if (contentType.startsWith('image/') && contentType !== 'image/svg+xml') return 'image';
  if (
    contentType.startsWith('text/') ||
    ['application/json', 'application/x-ndjson', 'application/xml', 'image/svg+xml'].includes(contentType)
  )
    return 'text';
  return 'link';
}

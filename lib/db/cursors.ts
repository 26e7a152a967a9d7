import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { cursorKey } from '../config.ts';

/**
 * Cursors sealed (docs/api.md#pagination): a position (its key values and counts, as each list
 * keeps it) goes out as AES-256-GCM of its JSON under the deployment's key (`CURSOR_KEY`), so that
 * a cursor shows neither stored key names nor values, and one changed by a single bit does not open
 * (422, as any cursor that is not one). Every function holds the same key: a cursor one Lambda
 * made, another opens. 12 bytes of nonce and 16 of tag make a cursor 28 bytes longer than its JSON.
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

let key: { secret: string; aes: Buffer } | undefined;

/** The AES key of the configured secret: its SHA-256, made once per secret. */
function aesKey(): Buffer {
  const secret = cursorKey();
  if (key?.secret !== secret) key = { secret, aes: createHash('sha256').update(`cursor\u0000${secret}`).digest() };
  return key.aes;
}

/** `position` sealed into an opaque cursor (base64url). */
export function sealCursor(position: object): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(), nonce);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The position a cursor of `sealCursor` holds, parsed; undefined for anything else (forged, changed, another key's). */
export function openCursor(cursor: string): unknown {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(), bytes.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

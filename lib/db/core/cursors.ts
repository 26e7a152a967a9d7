import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import { cursorKey } from '../../config.ts';

/**
 * Cursors sealed (docs/api.md#pagination): a position (its key values and counts, as each list
 * keeps it) goes out as AES-256-GCM of its JSON under the deployment's key (`CURSOR_KEY`), so that
 * a cursor shows neither stored key names nor values, and one changed by a single bit does not open
 * (422, as any cursor that is not one). Every function holds the same key: a cursor one Lambda
 * made, another opens. 12 bytes of nonce and 16 of tag make a cursor 28 bytes longer than its JSON.
 * The nonce is an HMAC of the JSON (a synthetic IV): the same position seals to the same cursor, so
 * that a page's `Link`, and with it the page's ETag, stays the same while the page does.
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

let key: { secret: string; aes: Buffer; nonce: Buffer } | undefined;

/** The keys of the configured secret (AES, and the HMAC of nonces): SHA-256 of it, made once per secret. */
function keysOf(): { aes: Buffer; nonce: Buffer } {
  const secret = cursorKey();
  const derive = (use: string) => createHash('sha256').update(`${use}\u0000${secret}`).digest();
  if (key?.secret !== secret) key = { secret, aes: derive('cursor'), nonce: derive('cursor-nonce') };
  return key;
}

const aesKey = () => keysOf().aes;

/** `position` sealed into an opaque cursor (base64url). */
export function sealCursor(position: object): string {
  const json = JSON.stringify(position);
  // Distinct positions get distinct nonces (but for a 2^-96 chance): GCM's one rule on nonces holds.
  const nonce = createHmac('sha256', keysOf().nonce).update(json).digest().subarray(0, NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(), nonce);
  const sealed = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
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

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every API token starts with this, so a leaked one is recognisable by secret scanners. */
export const TOKEN_PREFIX = 'stk_';
const TOKEN_PATTERN = /^stk_[A-Za-z0-9_-]{43}$/;

/** A new token: 256 random bits, base64url, with the recognisable prefix. Shown once, never stored. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 of the token: the only form that is stored and looked up (by key, so no comparison leaks timing). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Cheap shape check before any lookup: garbage never costs a DynamoDB call. */
export function looksLikeToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/**
 * Whether two presented tokens are the same, in time independent of where they differ: their
 * digests are compared with `timingSafeEqual`, so not even the length of a common prefix leaks.
 */
export function sameToken(a: string, b: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

import { describe, expect, it } from 'vitest';
import { openCursor, sealCursor } from '../../lib/db/core/cursors.ts';
import { decodeCursor, encodeCursor } from '../../lib/db/core/list.ts';
import { collections } from '../../lib/db/core/keys.ts';

/** Cursors are sealed (lib/db/core/cursors.ts): nothing of the position reads through, and a changed one never opens. */
describe('sealed cursors', () => {
  const c = collections.sprintIssues(7, 3, 5);
  const key = { PK: c.pk, SK: 'ISSUE#0000000042', LSK: `${c.prefix}0000000042` };

  it('round-trip, show no stored key name or value, and are the same for the same position only (a page keeps its ETag)', () => {
    const cursor = encodeCursor(key, { n: 12 });
    expect(decodeCursor(cursor, c)).toEqual({ ...key, n: 12, m: undefined });
    const plain = Buffer.from(cursor, 'base64url').toString('latin1');
    for (const shown of ['PK', 'SK', 'LSK', 'ISSUE', 'ORG', '0000000042', c.prefix]) expect(plain).not.toContain(shown);
    expect(encodeCursor(key, { n: 12 })).toBe(cursor);
    expect(encodeCursor(key, { n: 13 })).not.toBe(cursor);
    // Not the same nonce for another position: the first 12 bytes differ too.
    const nonce = (c: string) => Buffer.from(c, 'base64url').subarray(0, 12).toString('hex');
    expect(nonce(encodeCursor(key, { n: 13 }))).not.toBe(nonce(cursor));
  });

  it('refuse (422) a cursor with any one bit changed, one cut short, and the readable form older cursors had', () => {
    const cursor = encodeCursor(key, { n: 12 });
    const bytes = Buffer.from(cursor, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i]! ^= 1;
      expect(() => decodeCursor(changed.toString('base64url'), c)).toThrow(/cursor is not valid/);
    }
    expect(() => decodeCursor(cursor.slice(0, -4), c)).toThrow(/cursor is not valid/);
    const readable = Buffer.from(JSON.stringify({ ...key, n: 12 })).toString('base64url');
    expect(() => decodeCursor(readable, c)).toThrow(/cursor is not valid/);
  });

  it('open only what they sealed', () => {
    expect(openCursor(sealCursor({ i: 1, n: 2 }))).toEqual({ i: 1, n: 2 });
    for (const junk of ['', 'x', 'A'.repeat(40), Buffer.alloc(64).toString('base64url')])
      expect(openCursor(junk)).toBeUndefined();
  });
});

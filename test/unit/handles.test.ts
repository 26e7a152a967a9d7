import { describe, expect, it } from 'vitest';
import { handlePattern, isHandle, maxHandleLength, normaliseHandle } from '../../lib/model/handles.ts';

describe('handles (lib/model/handles.ts)', () => {
  it('takes letters and digits, with "-", "_" and "." inside', () => {
    for (const handle of ['a', '7', 'ana', 'ana-b', 'ana_b', 'ana.b', 'a.b-c_d9', 'x'.repeat(maxHandleLength)]) {
      expect(isHandle(handle), handle).toBe(true);
    }
  });

  it('refuses a handle that is empty, too long, or has another character', () => {
    for (const handle of ['', 'x'.repeat(maxHandleLength + 1), 'ana b', 'ana@b', 'añа', 'ana/b', '@ana', 'ana+b']) {
      expect(isHandle(handle), handle).toBe(false);
    }
  });

  it('refuses "-", "_" or "." first or last', () => {
    for (const handle of ['-ana', 'ana-', '_ana', 'ana_', '.ana', 'ana.', '.', '-']) {
      expect(isHandle(handle), handle).toBe(false);
    }
  });

  it('takes a handle in any case, and stores it lower-case', () => {
    expect(isHandle('Ana.B')).toBe(true);
    expect(normaliseHandle('Ana.B')).toBe('ana.b');
    expect(handlePattern.test('Ana')).toBe(false);
    expect(handlePattern.test('ana')).toBe(true);
  });

  it('anchors the pattern at both ends', () => {
    expect(handlePattern.source.startsWith('^')).toBe(true);
    expect(handlePattern.source.endsWith('$')).toBe(true);
    expect(handlePattern.test('ok ana')).toBe(false);
  });
});

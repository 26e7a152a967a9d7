import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations (an esbuild alias of the Lambda bundles)
import LRUCache from '../../infra/shims/lru-cache.js';

describe('the bundles’ LRU cache (in place of mnemonist’s)', () => {
  it('evicts the least recently used entry beyond its capacity; get refreshes, peek does not', () => {
    const cache = new LRUCache(2);
    cache.set('a', 1).set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3); // evicts b
    expect(cache.has('b')).toBe(false);
    expect(cache.peek('a')).toBe(1);
    cache.set('d', 4); // a was only peeked since c: evicts a
    expect([cache.has('a'), cache.has('c'), cache.has('d')]).toEqual([false, true, true]);
    expect(cache.get('missing')).toBeUndefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

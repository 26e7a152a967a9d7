/**
 * What every Lambda bundle imports as `mnemonist/lru-cache` (an esbuild alias, infra/bundling.ts):
 * the one class the DynamoDB client's endpoint cache (`@aws-sdk/endpoint-cache`) uses, on a Map
 * (insertion order is recency order). The client builds the cache at construction even with
 * endpoint discovery off (its default for DynamoDB); mnemonist and its iterator helpers weigh
 * 7 KB that every bundle loads at init, and that the `/mcp` bundle's 500 KB budget needs for metrics.
 * Same methods and semantics the endpoint cache calls: get (refreshes recency), peek (does not),
 * set (evicts the least recently used beyond capacity), has, clear.
 */
export default class LRUCache {
  constructor(capacity) {
    this.capacity = capacity;
    this.items = new Map();
  }
  get(key) {
    if (!this.items.has(key)) return undefined;
    const value = this.items.get(key);
    this.items.delete(key);
    this.items.set(key, value);
    return value;
  }
  peek(key) {
    return this.items.get(key);
  }
  set(key, value) {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value);
    return this;
  }
  has(key) {
    return this.items.has(key);
  }
  clear() {
    this.items.clear();
  }
  get size() {
    return this.items.size;
  }
}

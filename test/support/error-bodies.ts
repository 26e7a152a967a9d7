import { expect } from 'vitest';
import type { ApiResponse } from './api.ts';

/**
 * Every 4xx/5xx body is JSON (docs/api.md: Errors), `{error: string}`, or `{errors: string[]}` for a 422
 * validation failure, and nothing else. Register with `responseObservers` to check every response.
 */
export function expectErrorShape(method: string, path: string, res: ApiResponse): void {
  if (res.status < 400) return;
  const where = `${method} ${path} -> ${res.status}`;
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(res.body, where).toBeTypeOf('object');
  const keys = Object.keys(res.body ?? {});
  if (res.status === 422 && keys.includes('errors')) {
    expect(keys, where).toEqual(['errors']);
    expect(res.body.errors.length, where).toBeGreaterThan(0);
    for (const message of res.body.errors) expect(message, where).toBeTypeOf('string');
  } else {
    expect(keys, where).toEqual(['error']);
    expect(res.body.error, where).toBeTypeOf('string');
    expect(res.body.error.length, where).toBeGreaterThan(0);
  }
}

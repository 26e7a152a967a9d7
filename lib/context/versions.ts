import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExpectedVersions } from '../model/versions.ts';

/**
 * The versions a request expects of its resource (`If-Match`, or an MCP tool's `expected_version`),
 * for the length of the request: lib/db/core/versions.ts adds them to the condition of the first write
 * of that resource, and that write marks them checked, so a request that writes its resource more
 * than once (a sprint completion) checks only its first write.
 */

interface Scope {
  expected: ExpectedVersions;
  /** Set once a guarded write succeeded: later writes of the same request are not conditional. */
  spent: boolean;
}

const scope = new AsyncLocalStorage<Scope>();

/** Runs `fn` so that its first write of its resource applies only at one of the `expected` versions. */
export function expectingVersion<T>(expected: ExpectedVersions | undefined, fn: () => Promise<T>): Promise<T> {
  return expected === undefined ? fn() : scope.run({ expected, spent: false }, fn);
}

/** True when a write of the request's resource must check a version now. */
export const versionRequired = (): boolean => {
  const current = scope.getStore();
  return current !== undefined && !current.spent;
};

/** The versions the request expects, while a write of its resource must still check them. */
export const expectedVersions = (): ExpectedVersions | undefined => (versionRequired() ? scope.getStore()?.expected : undefined);

/** Marks the required version as checked: the guarded write succeeded. */
export function versionChecked(): void {
  const current = scope.getStore();
  if (current) current.spent = true;
}

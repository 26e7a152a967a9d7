import { beforeEach } from 'vitest';
import type { assertConforms } from './contract.ts';
import { responseObservers, undeclaredRoutes } from './response-observers.ts';

// Every response an e2e test receives through `apiClient` is held against the OpenAPI document; a
// mismatch rejects the request, which fails the test that made it. Tests that mean to hit unknown
// routes call `allowUndeclaredRoutes()` first. The contract (ajv, the document's schemas) is loaded
// with the first response: a file that sends no request (each unit test) never pays for it.
let contract: Promise<{ assertConforms: typeof assertConforms }> | undefined;
responseObservers.push(async (method, path, res) =>
  (await (contract ??= import('./contract.ts'))).assertConforms(method, path, res),
);
beforeEach(() => {
  undeclaredRoutes.allowed = false;
});

import { beforeEach } from 'vitest';
import { responseObservers } from './api.ts';
import { assertConforms, resetUndeclaredRoutes } from './contract.ts';

// Every response an e2e test receives through `apiClient` is held against the OpenAPI document; a
// mismatch rejects the request, which fails the test that made it. Tests that mean to hit unknown
// routes call `allowUndeclaredRoutes()` first.
responseObservers.push((method, path, res) => assertConforms(method, path, res));
beforeEach(() => resetUndeclaredRoutes());

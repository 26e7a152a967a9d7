import type { ApiResponse } from './api.ts';

/**
 * Observers of every e2e response (the contract tests validate each one against the OpenAPI
 * document: test/support/contract-setup.ts). Each receives the method, the path as sent, and the
 * response. A module of its own, importing nothing, so that a test file that sends no request
 * (a unit test) loads neither the API client nor the contract.
 */
export const responseObservers: ((method: string, path: string, res: ApiResponse) => void | Promise<void>)[] = [];

/**
 * Whether the running test accepts the gateway's 404 from routes the document does not have
 * (`allowUndeclaredRoutes`, test/support/contract.ts); false again before each test.
 */
export const undeclaredRoutes = { allowed: false };

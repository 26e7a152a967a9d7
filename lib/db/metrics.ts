import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request record of DynamoDB calls, for the call budgets (tests and local logs read it). */
export interface DbCallLog {
  calls: string[];
}

const storage = new AsyncLocalStorage<DbCallLog>();

/** Runs `fn` with a fresh call log; every DynamoDB command sent inside it is recorded. */
export async function withDbCallLog<T>(fn: () => Promise<T>): Promise<{ result: T; log: DbCallLog }> {
  const log: DbCallLog = { calls: [] };
  const result = await storage.run(log, fn);
  return { result, log };
}

/** Records one command on the current request's log, if there is one. */
export function recordDbCall(commandName: string): void {
  storage.getStore()?.calls.push(commandName);
}

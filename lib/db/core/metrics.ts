import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request record of DynamoDB calls, for the call budgets (tests and local logs read it). */
export interface DbCallLog {
  calls: string[];
  /**
   * Serial round trips: the longest chain of calls each sent after the one before it had answered
   * (a call sent after another answered is counted as waiting on it). Calls sent side by side count
   * once, so the figure does not depend on how fast DynamoDB answers.
   */
  roundTrips: number;
}

interface Log extends DbCallLog {
  /** The longest chain among the calls answered so far. */
  answered: number;
}

const storage = new AsyncLocalStorage<Log>();

/** Runs `fn` with a fresh call log; every DynamoDB command sent inside it is recorded. */
export async function withDbCallLog<T>(fn: () => Promise<T>): Promise<{ result: T; log: DbCallLog }> {
  const log: Log = { calls: [], roundTrips: 0, answered: 0 };
  const result = await storage.run(log, fn);
  return { result, log: { calls: log.calls, roundTrips: log.roundTrips } };
}

/** Records one command on the current request's log, if there is one; call what it returns once answered. */
export function recordDbCall(commandName: string): () => void {
  const log = storage.getStore();
  if (!log) return () => undefined;
  log.calls.push(commandName);
  // Sent now: after every call answered so far.
  const depth = log.answered + 1;
  log.roundTrips = Math.max(log.roundTrips, depth);
  return () => {
    log.answered = Math.max(log.answered, depth);
  };
}

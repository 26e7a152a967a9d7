/**
 * Fault injection for tests: DynamoDB refusals that DynamoDB Local never produces (throttling, a
 * transaction cancelled by a conflicting one). Nothing in the request path imports this module; a
 * test that does adds one middleware to the shared client's stack, inside the SDK's retry loop, so
 * the SDK sees an injected fault exactly as it would see DynamoDB's own answer (and retries it, or
 * not, by its own rules). The request that fails never reaches DynamoDB (nothing of it is applied),
 * unless the rule says it is `applied` and only its answer lost.
 */
import {
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
  type DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { db } from '../../lib/db/core/client.ts';

export type FaultKind = 'ProvisionedThroughputExceeded' | 'Throttling' | 'TransactionConflict' | 'ConnectionReset' | 'Unknown';

export interface FaultRule {
  /** Low-level command names to fail, e.g. `TransactWriteItemsCommand`, `UpdateItemCommand`. */
  commands: string[];
  fault: FaultKind;
  /** Attempts to fail (SDK retries included); default: every one until removed. */
  times?: number;
  /** Only attempts whose (wire-format) input satisfies this. */
  when?: (input: Record<string, unknown>) => boolean;
  /**
   * The attempt reaches DynamoDB and is applied, and its answer is lost: the SDK sees the fault
   * (`ConnectionReset`, which it retries) as it would see a connection reset after the request.
   */
  applied?: boolean;
}

export interface InjectedFault {
  /** Attempts failed so far. */
  readonly hits: number;
  /** Attempts that matched the commands (failed or, after `times`, let through). */
  readonly seen: number;
  remove(): void;
}

interface ActiveRule extends FaultRule {
  hits: number;
  seen: number;
}

const active = new Set<ActiveRule>();
let installed = false;

function faultError(kind: FaultKind, command: string, input: Record<string, unknown>): DynamoDBServiceException | Error {
  const base = { message: `Injected fault: ${kind}`, $metadata: { httpStatusCode: 400 } };
  switch (kind) {
    case 'ProvisionedThroughputExceeded':
      return new ProvisionedThroughputExceededException(base);
    case 'Throttling':
      return new ThrottlingException(base);
    case 'TransactionConflict': {
      // A single-item write that meets a transaction in progress on its item is refused outright.
      if (command !== 'TransactWriteItemsCommand') return new TransactionConflictException(base);
      // A transaction is cancelled, one reason per item: the first item met a conflicting transaction.
      const items = Array.isArray(input.TransactItems) ? input.TransactItems : [{}];
      const reasons = items.map((_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' }));
      return new TransactionCanceledException({ ...base, CancellationReasons: reasons });
    }
    case 'ConnectionReset':
      return Object.assign(new Error('Injected fault: socket hang up'), { code: 'ECONNRESET' });
    case 'Unknown':
      return Object.assign(new Error('Injected fault: an error nobody expects'), { name: 'InjectedUnknownError' });
  }
}

function install() {
  if (installed) return;
  installed = true;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '');
      const input = (args.input ?? {}) as Record<string, unknown>;
      for (const rule of active) {
        if (!rule.commands.includes(command) || (rule.when && !rule.when(input))) continue;
        rule.seen++;
        if (rule.times !== undefined && rule.hits >= rule.times) continue;
        rule.hits++;
        if (rule.applied) await next(args);
        throw faultError(rule.fault, command, input);
      }
      return next(args);
    },
    // The deserialize step runs inside the retry middleware (finalizeRequest): every attempt passes here.
    { step: 'deserialize', name: 'faultInjection', priority: 'high' },
  );
}

/** Starts failing the matching DynamoDB calls of this process; `remove()` stops it. */
export function injectFault(rule: FaultRule): InjectedFault {
  install();
  const state: ActiveRule = { ...rule, hits: 0, seen: 0 };
  active.add(state);
  return {
    get hits() {
      return state.hits;
    },
    get seen() {
      return state.seen;
    },
    remove: () => {
      active.delete(state);
    },
  };
}

/** Removes every injected fault. */
export function clearFaults(): void {
  active.clear();
}

/**
 * Cuts the SDK's wait before each retry to a millisecond for the test file that calls it (at its
 * top), and restores it after the file. A throttled call's retries otherwise wait a random time
 * up to 1 s, 2 s and 4 s (the SDK's throttling backoff), seconds a test of what the retries do
 * spends asleep. Which errors are retried, how many attempts are made and what the last one
 * answers stay the SDK's own.
 */
export function quickSdkRetries(): void {
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    const strategy = (await db.config.retryStrategy()) as unknown as {
      retryBackoffStrategy?: { computeNextBackoffDelay: (attempt: number) => number };
    };
    const backoff = strategy.retryBackoffStrategy;
    if (!backoff) throw new Error("the SDK's retry strategy has no backoff to shorten");
    const own = Object.getOwnPropertyDescriptor(backoff, 'computeNextBackoffDelay');
    backoff.computeNextBackoffDelay = () => 1;
    restore = () => {
      if (own) Object.defineProperty(backoff, 'computeNextBackoffDelay', own);
      else delete (backoff as { computeNextBackoffDelay?: unknown }).computeNextBackoffDelay;
    };
  });
  afterAll(() => restore?.());
}

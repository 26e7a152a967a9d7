import {
  BatchGetCommand,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { UnavailableError } from '../../vocabulary/errors.ts';
import { db, tableName } from './client.ts';
import { versionChecked, versionRequired } from '../../context/versions.ts';
import { stampItem, stampUpdate } from './stamps.ts';
import { PRECONDITION, guardVersion } from './versions.ts';
import { cancellationCodes, cancelledItemWasThere, isConditionFailed } from './errors.ts';
import type { Key } from './keys.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

import type { RefusalReason } from './refusals.ts';

/**
 * A write refused by one of its conditions. `reason` names the guard that failed (as the caller
 * labelled it), so the domain can decide what that means: a 404, a 422, or "re-read and retry".
 */
export class Refused extends Error {
  override readonly name = 'Refused';
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason) {
    super(`write refused: ${reason}`);
    this.reason = reason;
  }
}

/** Whether `err` is a refusal for one of `reasons` (typed: a reason that no guard names does not compile). */
export function isRefused<R extends RefusalReason>(err: unknown, ...reasons: R[]): err is Refused & { readonly reason: R } {
  return err instanceof Refused && (reasons as RefusalReason[]).includes(err.reason);
}

/** One item of a transaction, with the name of the guard its condition stands for. */
export interface GuardedItem {
  item: TransactItem;
  /** What a failed condition on this item means; items without conditions leave it undefined. */
  reason?: RefusalReason | undefined;
  /**
   * The item is the resource the request is about: a version the request expects (`If-Match`,
   * lib/db/core/versions.ts) is checked on it, and its failure is refused as `PRECONDITION`.
   */
  resource?: boolean;
}

/**
 * The write with the version the request expects added to its condition; refused as
 * `PRECONDITION`, unsent, when none of the tags the request names was issued for its item.
 */
function guarded<W extends Parameters<typeof guardVersion>[0]>(write: W): W {
  const required = versionRequired();
  const written = guardVersion(write);
  if (!written) throw new Refused(PRECONDITION);
  // A failed condition then says whether the item is there at all: a resource that is gone is
  // not one at another version (RFC 9110 §13.2.1: the 404 it would get without the header wins).
  return required ? ({ ...written, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } as W) : written;
}

/**
 * The reason a guarded resource write was refused: `PRECONDITION` while its item is there (at
 * another version), its own reason once it is gone (a 404), when it has one.
 */
const refusalOfGuarded = (itemIsThere: boolean, reason: RefusalReason | undefined): RefusalReason =>
  itemIsThere ? PRECONDITION : (reason ?? PRECONDITION);

/** The item with the version the request expects added to its condition. */
function guardItem(item: TransactItem): TransactItem {
  if (item.Update) return { ...item, Update: guarded(item.Update) };
  if (item.Delete) return { ...item, Delete: guarded(item.Delete) };
  if (item.ConditionCheck) return { ...item, ConditionCheck: guarded(item.ConditionCheck) };
  return item;
}

/**
 * The reason of a write decided on a read that has changed since (another write got there first):
 * read again and decide again (`rereadOnStale`).
 */
export const STALE = 'stale';

/** A condition that only says "this item still exists", named for what its absence means. */
export function existsCheck(key: Key, reason: RefusalReason): GuardedItem {
  return { item: { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(PK)' } }, reason };
}

/** A Put of a new item: refused (as `reason`) if an item with its key exists. */
export function putNew(item: Record<string, unknown>, reason?: RefusalReason): GuardedItem {
  return {
    item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    ...(reason === undefined ? {} : { reason }),
  };
}

/** A Put that replaces whatever item has its key. */
export const putItem = (item: Record<string, unknown>): GuardedItem => ({
  item: { Put: { TableName: tableName(), Item: item } },
});

/**
 * `ADD <counter> :n` on an item that must exist (refused as `reason` otherwise); with `max`, also
 * refused when the counter is already at `max` (a bounded count: endpoints per organisation).
 */
export function addTo(key: Key, counter: string, n: number, reason?: RefusalReason, max?: number): GuardedItem {
  const below = max === undefined ? '' : ` AND (attribute_not_exists(${counter}) OR ${counter} < :max)`;
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: `ADD ${counter} :n`,
        ConditionExpression: `attribute_exists(PK)${below}`,
        ExpressionAttributeValues: { ':n': n, ...(max === undefined ? {} : { ':max': max }) },
      },
    },
    ...(reason === undefined ? {} : { reason }),
  };
}

/**
 * One conditional UpdateItem on its own (the table is this service's): true when written, false
 * when its condition refused it (nothing written).
 */
export async function updateIf(update: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  try {
    await db.send(new UpdateCommand({ TableName: tableName(), ...update }));
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

/**
 * Sends `addTo` on its own and returns the counter's new value; undefined when the item is not
 * there (nothing is written then).
 */
export async function addToExisting(key: Key, counter: string, n: number): Promise<number | undefined> {
  const { Update } = addTo(key, counter, n).item as { Update: UpdateCommandInput };
  try {
    const out = await db.send(new UpdateCommand({ ...Update, ReturnValues: 'UPDATED_NEW' }));
    return Number(out.Attributes?.[counter]);
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    throw err;
  }
}

const CONFLICT_RETRIES = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How far a read-decide-write step may go on losing races before it answers 503: at most
 * `attempts` runs, and no new run once `withinMs` have passed since the first began (so that a
 * request under contention ends well within the function's timeout). Between runs it waits a
 * random time up to `baseMs` doubled per lost race, at most `capMs` ("full jitter"): the losers
 * of one race spread out instead of meeting again at the next.
 */
export interface RetryBudget {
  attempts: number;
  withinMs: number;
  baseMs: number;
  capMs: number;
}

/** How many times a read-decide-write step is run before a lost race becomes a 503. */
export const STALE_ATTEMPTS = 5;

const defaultBudget: RetryBudget = { attempts: STALE_ATTEMPTS, withinMs: 5_000, baseMs: 10, capMs: 320 };

/**
 * A write that lost a race and changed nothing: refused as `STALE` (a concurrent write changed
 * what it read), or cancelled by a TransactionConflict that outlasted `transact`'s own retries
 * (another transaction held one of its items).
 */
function lostRace(err: unknown): boolean {
  if (err instanceof Refused) return err.reason === STALE;
  return cancellationCodes(err)?.some((c) => c === 'TransactionConflict') ?? false;
}

/**
 * THE retry of a write that lost a race: runs a read-decide-write step again, on a fresh read,
 * while it loses (`lostRace`), within `budget` (a number: that many attempts with the default
 * backoff); past it, 503 (UnavailableError), so the client retries later. Other errors pass
 * through at once. The first run costs nothing extra: only a lost race is run again.
 */
export async function rereadOnStale<T>(step: () => Promise<T>, budget: number | RetryBudget = defaultBudget): Promise<T> {
  const { attempts, withinMs, baseMs, capMs } = typeof budget === 'number' ? { ...defaultBudget, attempts: budget } : budget;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (!lostRace(err)) throw err;
      const wait = Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
      if (attempt >= attempts || Date.now() + wait - started >= withinMs) throw new UnavailableError();
      await sleep(wait);
    }
  }
}

/**
 * Sends one TransactWriteItems. A condition that fails throws `Refused` with the reason of the
 * first failing item. A TransactionConflict (another transaction held one of the items; nothing
 * was applied, every condition still stands) is retried a few times with jitter before it
 * surfaces, as a 503, through the error mapper. Puts and updates carry the actor and their item's
 * version (lib/db/core/stamps.ts); the write of an item whose version is required (`atVersion`,
 * lib/db/core/versions.ts) also checks it, and its failure is refused as `PRECONDITION`.
 */
/** The most items one TransactWriteItems takes (DynamoDB's limit). */
export const TRANSACTION_ITEMS = 100;

export async function transact(items: GuardedItem[]): Promise<void> {
  const guarded = versionRequired() && items.some((i) => i.resource);
  const sent = items.map((i) => stampItem(guarded && i.resource ? guardItem(i.item) : i.item));
  for (let attempt = 0; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: sent }));
      if (guarded) versionChecked();
      return;
    } catch (err) {
      const codes = cancellationCodes(err);
      if (!codes) throw err;
      const failed = codes.findIndex((c) => c === 'ConditionalCheckFailed');
      if (failed >= 0) {
        const item = items[failed];
        throw new Refused(
          guarded && item?.resource
            ? refusalOfGuarded(cancelledItemWasThere(err, failed), item.reason)
            : (item?.reason ?? 'condition'),
        );
      }
      const conflict = codes.some((c) => c === 'TransactionConflict');
      if (!conflict || attempt >= CONFLICT_RETRIES) throw err;
      await sleep(20 * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}

/**
 * THE single UpdateItem of a request's resource, answered as written (ALL_NEW): stamped like every
 * write of a request (lib/db/core/stamps.ts) and conditioned on the versions the request expects
 * (`If-Match`, lib/db/core/versions.ts). A failed condition is refused as `PRECONDITION` when a version
 * was expected, otherwise as `reason`.
 */
export async function updateResource<T = Record<string, unknown>>(
  update: {
    Key: Key;
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  },
  reason: RefusalReason,
): Promise<T> {
  const required = versionRequired();
  try {
    const out = await db.send(
      new UpdateCommand(stampUpdate(guarded({ ...update, TableName: tableName(), ReturnValues: 'ALL_NEW' as const }))),
    );
    if (required) versionChecked();
    return (out.Attributes ?? {}) as T;
  } catch (err) {
    if (isConditionFailed(err))
      throw new Refused(required ? refusalOfGuarded((err as { Item?: unknown }).Item !== undefined, reason) : reason);
    throw err;
  }
}

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_MAX = 100;
/** Rounds of unprocessed keys read again (throttling) before the read is a 503. */
const UNPROCESSED_ATTEMPTS = 6;

/**
 * Reads items by key in one consistent BatchGetItem (ancestor checks: project, sprint, issue in a
 * single round trip; more than 100 keys go out as parallel batches). Returns them in the order of
 * `itemKeys`, undefined where absent. Unprocessed keys (throttling) are read again with backoff,
 * a bounded number of times: sustained throttling ends in a 503, well within the function's timeout.
 */
export async function batchGet(itemKeys: Key[]): Promise<(Record<string, unknown> | undefined)[]> {
  const found = new Map<string, Record<string, unknown>>();
  const id = (k: { PK: unknown; SK: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;
  const unique: Key[] = [...new Map(itemKeys.map((k) => [id(k), { PK: k.PK, SK: k.SK }])).values()];
  const batches: Key[][] = [];
  for (let i = 0; i < unique.length; i += BATCH_GET_MAX) batches.push(unique.slice(i, i + BATCH_GET_MAX));
  await Promise.all(
    batches.map(async (batch) => {
      let pending = batch;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt >= UNPROCESSED_ATTEMPTS) throw new UnavailableError();
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const out = await db.send(
          new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[tableName()] ?? []) found.set(id(item as Key), item);
        pending = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
      }
    }),
  );
  return itemKeys.map((k) => found.get(id(k)));
}

/** One item by key, read consistently (one GetItem); `projection` limits what is read. */
export async function getItem<T = Record<string, unknown>>(key: Key, projection?: string): Promise<T | undefined> {
  const out = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: key,
      ConsistentRead: true,
      ...(projection ? { ProjectionExpression: projection } : {}),
    }),
  );
  return out.Item as T | undefined;
}

/** True when the item exists (one consistent GetItem of its key only). */
export const itemExists = async (key: Key): Promise<boolean> => (await getItem(key, 'PK')) !== undefined;

/**
 * `#field = :field` for every field whose value is defined (undefined means "not sent"; null is a
 * value), adding the names and values the expression needs. Only the fields given are written, so
 * concurrent updates of different fields never undo each other.
 */
export function setAssignments(
  fields: Record<string, unknown>,
  names: Record<string, string>,
  values: Record<string, unknown>,
): string[] {
  const sets: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  return sets;
}

/**
 * The fields of a change that were sent (undefined means "not sent"; null is a value): what a typed
 * update (lib/db/core/item.ts, `update`) sets, where an undefined value would remove the attribute.
 */
export const sentFields = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;

/** `attribute = value`, or "absent or null" when the expected value is null/undefined. */
export function equalsCondition(
  attribute: string,
  expected: unknown,
  names: Record<string, string>,
  values: Record<string, unknown>,
): string {
  const name = `#${attribute}`;
  names[name] = attribute;
  if (expected === null || expected === undefined) {
    values[':null_type'] = 'NULL';
    return `(attribute_not_exists(${name}) OR attribute_type(${name}, :null_type))`;
  }
  values[`:expected_${attribute}`] = expected;
  return `${name} = :expected_${attribute}`;
}

/**
 * The condition of a write decided on an issue as read at revision `rev` (`:rev` must be bound to
 * `rev ?? 0`): the issue still exists and nothing changed it since. An item written without a
 * revision counts as revision 0.
 */
export function revisionCondition(rev: number | undefined): string {
  return rev ? 'attribute_exists(PK) AND rev = :rev' : 'attribute_exists(PK) AND (attribute_not_exists(rev) OR rev = :rev)';
}

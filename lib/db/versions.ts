import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Item versions, for ETags and conditional writes (`If-Match`, lib/http/conditional.ts). Every Put
 * and Update the data layer sends for a request stamps the item's `version` (1 on a Put, +1 on an
 * Update; lib/db/actor.ts), so any change a request makes moves it, a parent's counters moved by a
 * child's write included. (The stream consumers' bookkeeping, which changes nothing a resource
 * shows, does not.)
 *
 * A request that names the versions it expects (`If-Match`, or an MCP tool's `expected_version`)
 * runs inside `expectingVersion`. The write of the resource the request is about (the item a data
 * function marks `resource`, or passes through `guardVersion`) then also requires one of those
 * versions, in its own condition: no extra call. Its failure is refused as `PRECONDITION` (412),
 * and a request that writes its resource more than once (a sprint completion) checks only its first
 * write.
 */
export const VERSION_ATTRIBUTE = 'version';

/** The reason (`Refused.reason`) of a write whose resource is no longer at a version the request expects. */
export const PRECONDITION = 'precondition';

/** What a conditional request expects of its resource: one of these versions, or (`any`) that it exists. */
export type ExpectedVersions = number[] | 'any';

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

/** Marks the required version as checked: the guarded write succeeded. */
export function versionChecked(): void {
  const current = scope.getStore();
  if (current) current.spent = true;
}

/**
 * The condition that the number stored in `name` (a version, a counter) is `expected`, given as
 * the value `value`: 0 also matches an item written before the attribute existed.
 */
export const storedNumberIs = (name: string, value: string, expected: number): string =>
  expected === 0 ? `(attribute_not_exists(${name}) OR ${name} = ${value})` : `${name} = ${value}`;

interface Conditional {
  ConditionExpression?: string | undefined;
  ExpressionAttributeNames?: Record<string, string> | undefined;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/**
 * The write of the request's resource (an Update, Delete or ConditionCheck) with the versions the
 * request expects added to its condition; unchanged when the request expects none.
 */
export function guardVersion<W extends Conditional>(write: W): W {
  const current = scope.getStore();
  if (!current || current.spent) return write;
  const names = { ...write.ExpressionAttributeNames };
  const values = { ...write.ExpressionAttributeValues };
  let condition = 'attribute_exists(PK)';
  if (current.expected !== 'any') {
    names['#expected_version'] = VERSION_ATTRIBUTE;
    const options = current.expected.map((version, i) => {
      values[`:expected_version_${i}`] = version;
      return storedNumberIs('#expected_version', `:expected_version_${i}`, version);
    });
    condition = `attribute_exists(PK) AND (${options.join(' OR ')})`;
  }
  return {
    ...write,
    ConditionExpression: write.ConditionExpression ? `(${write.ConditionExpression}) AND ${condition}` : condition,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

const VERSION = Symbol('version');

/**
 * The resource (as answered) with the version of the item it was read from, or written as
 * (`version`): kept out of its JSON, read by the ETag (lib/http/conditional.ts).
 */
export function withVersion<T extends object>(resource: T, record: object): T {
  const version = (record as Record<string, unknown>)[VERSION_ATTRIBUTE];
  Object.defineProperty(resource, VERSION, { value: Number(version ?? 0), enumerable: false });
  return resource;
}

/** The version a resource was answered at (`withVersion`), if it carries one. */
export function answeredVersion(resource: unknown): number | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  const version = (resource as { [VERSION]?: number })[VERSION];
  return typeof version === 'number' ? version : undefined;
}

/** The stored version of an item as read (an item written before versions existed is version 0). */
export const versionOf = (item: object): number => Number((item as Record<string, unknown>)[VERSION_ATTRIBUTE] ?? 0);

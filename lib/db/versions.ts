import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Key } from './keys.ts';

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

/**
 * An entity tag this API issues for a versioned resource (lib/http/conditional.ts), taken apart:
 * `"<version>-<digest><check>"`. The check binds the tag to the item it was issued for, its version
 * and its digest (`tagCheck`), so that the write can tell a tag it issued from one it did not,
 * without reading the item.
 */
export interface VersionTag {
  version: number;
  digest: string;
  check: string;
}

/**
 * What a conditional request expects of its resource: that it exists (`any`); that it is at one of
 * these versions (an MCP tool's `expected_version`); or (`tags`, `If-Match`) that it is at the
 * version of one of these tags among those issued for it.
 */
export type ExpectedVersions = 'any' | number[] | { tags: VersionTag[] };

/** Characters of a tag's check code (base64url: 36 bits). */
export const CHECK_LENGTH = 6;

/**
 * The check code of a version tag: a hash of the key of the item it is issued for, the version and
 * the digest. Not a secret (anyone may compute it, as anyone may read the current tag): it makes
 * `If-Match` compare the whole tag, so that a tag that was never issued for this item (a forged
 * digest, a tag of another resource) matches nothing.
 */
export function tagCheck(key: Key, version: number, digest: string): string {
  return createHash('sha256')
    .update(`${key.PK}\u0000${key.SK}\u0000${version}\u0000${digest}`)
    .digest('base64url')
    .slice(0, CHECK_LENGTH);
}

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
 * the value `value`: 0 also matches an item written before the attribute existed. A term to join
 * with AND; the version-0 form is one parenthesised group, never to be put in parentheses again
 * (DynamoDB refuses redundant parentheses).
 */
export const storedNumberIs = (name: string, value: string, expected: number): string =>
  expected === 0 ? `(attribute_not_exists(${name}) OR ${name} = ${value})` : `${name} = ${value}`;

/** `expression` as one operand of AND: in parentheses unless it is already one parenthesised group. */
export function grouped(expression: string): string {
  if (expression.startsWith('(')) {
    let depth = 0;
    for (let i = 0; i < expression.length; i++) {
      if (expression[i] === '(') depth++;
      else if (expression[i] === ')') depth--;
      if (depth === 0) {
        if (i === expression.length - 1) return expression;
        break;
      }
    }
  }
  return `(${expression})`;
}

interface Conditional {
  Key?: Key | Record<string, unknown> | undefined;
  ConditionExpression?: string | undefined;
  ExpressionAttributeNames?: Record<string, string> | undefined;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/** The versions the request expects of the item at `key`: those of the tags issued for it. */
function versionsFor(expected: number[] | { tags: VersionTag[] }, key: Conditional['Key']): number[] {
  if (Array.isArray(expected)) return [...new Set(expected)];
  const item = keyOf(key ?? {});
  if (!item) return [];
  const issued = expected.tags.filter((tag) => tagCheck(item, tag.version, tag.digest) === tag.check);
  return [...new Set(issued.map((tag) => tag.version))];
}

/**
 * The write of the request's resource (an Update, Delete or ConditionCheck) with the versions the
 * request expects added to its condition; unchanged when the request expects none. Undefined when
 * the request names tags none of which was issued for this item (a forged digest, another
 * resource's tag): the caller refuses it as `PRECONDITION` without sending it.
 */
export function guardVersion<W extends Conditional>(write: W): W | undefined {
  const current = scope.getStore();
  if (!current || current.spent) return write;
  const names = { ...write.ExpressionAttributeNames };
  const values = { ...write.ExpressionAttributeValues };
  let condition = 'attribute_exists(PK)';
  if (current.expected !== 'any') {
    const versions = versionsFor(current.expected, write.Key);
    if (versions.length === 0) return undefined;
    names['#expected_version'] = VERSION_ATTRIBUTE;
    // One flat OR: version 0 is also an item written before versions existed.
    const options = versions.map((version, i) => {
      values[`:expected_version_${i}`] = version;
      return `#expected_version = :expected_version_${i}`;
    });
    if (versions.includes(0)) options.unshift('attribute_not_exists(#expected_version)');
    condition = `attribute_exists(PK) AND (${options.join(' OR ')})`;
  }
  return {
    ...write,
    ConditionExpression: write.ConditionExpression ? `${grouped(write.ConditionExpression)} AND ${condition}` : condition,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/** The key of a stored item (its `PK` and `SK`), if the record carries one. */
function keyOf(record: object): Key | undefined {
  const { PK, SK } = record as Record<string, unknown>;
  return typeof PK === 'string' && typeof SK === 'string' ? { PK, SK } : undefined;
}

const VERSION = Symbol('version');

/** What a resource answered from a versioned item carries besides its JSON. */
export interface AnsweredVersion {
  version: number;
  /** The item's key, when the record it was answered from carried it: what its tag is issued for. */
  key: Key | undefined;
}

/**
 * The resource (as answered) with the version and the key of the item it was read from, or written
 * as (`record`: the item, or its key and `version`): kept out of its JSON, read by the ETag
 * (lib/http/conditional.ts). A record without a key gives a version but no tag `If-Match` accepts.
 */
export function withVersion<T extends object>(resource: T, record: object): T {
  const version = (record as Record<string, unknown>)[VERSION_ATTRIBUTE];
  const answered: AnsweredVersion = { version: Number(version ?? 0), key: keyOf(record) };
  Object.defineProperty(resource, VERSION, { value: answered, enumerable: false, configurable: true });
  return resource;
}

/** `to` (another answer of the same item, e.g. with a secret shown once) at the version `from` was answered at. */
export function sameVersion<T extends object>(from: object, to: T): T {
  const answered = answeredAt(from);
  if (answered) Object.defineProperty(to, VERSION, { value: answered, enumerable: false, configurable: true });
  return to;
}

/** The version and key a resource was answered at (`withVersion`), if it carries them. */
export function answeredAt(resource: unknown): AnsweredVersion | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  return (resource as { [VERSION]?: AnsweredVersion })[VERSION];
}

/** The version a resource was answered at (`withVersion`), if it carries one. */
export const answeredVersion = (resource: unknown): number | undefined => answeredAt(resource)?.version;

/** The stored version of an item as read (an item written before versions existed is version 0). */
export const versionOf = (item: object): number => Number((item as Record<string, unknown>)[VERSION_ATTRIBUTE] ?? 0);

import { answeredWith, tagCheck, type VersionTag } from '../../model/versions.ts';
import { expectedVersions, versionChecked } from '../../context/versions.ts';
import type { Key } from './keys.ts';

/**
 * Item versions, for ETags and conditional writes (`If-Match`, lib/http/conditional.ts). Every Put
 * and Update the data layer sends for a request stamps the item's `version` (1 on a Put, +1 on an
 * Update; lib/db/core/stamps.ts), so any change a request makes moves it, a parent's counters moved by a
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

/** The reason (`Refused.reason`) of a write whose resource is no longer at a version the request expects. */
export const PRECONDITION = 'precondition';

/** The attribute of a stored item that holds its version. */
export const VERSION_ATTRIBUTE = 'version';

/** The key of a stored item (its `PK` and `SK`), if the record carries one. */
export function keyOf(record: object): Key | undefined {
  const { PK, SK } = record as Record<string, unknown>;
  return typeof PK === 'string' && typeof SK === 'string' ? { PK, SK } : undefined;
}

/** What names a stored item in its version tags (`tagCheck`): its key. */
export const itemOf = (key: Key): string => `${key.PK}\u0000${key.SK}`;

/**
 * The resource (as answered) with the version and the key of the item it was read from, or written
 * as (`record`: the item, or its key and `version`): kept out of its JSON, read by the ETag
 * (lib/http/conditional.ts). A record without a key gives a version but no tag `If-Match` accepts.
 */
export function withVersion<T extends object>(resource: T, record: object): T {
  const key = keyOf(record);
  return answeredWith(resource, { version: versionOf(record), item: key && itemOf(key) });
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
  const issued = expected.tags.filter((tag) => tagCheck(itemOf(item), tag.version, tag.digest) === tag.check);
  return [...new Set(issued.map((tag) => tag.version))];
}

/**
 * The write of the request's resource (an Update, Delete or ConditionCheck) with the versions the
 * request expects added to its condition; unchanged when the request expects none. Undefined when
 * the request names tags none of which was issued for this item (a forged digest, another
 * resource's tag): the caller refuses it as `PRECONDITION` without sending it.
 */
export function guardVersion<W extends Conditional>(write: W): W | undefined {
  const expected = expectedVersions();
  if (expected === undefined) return write;
  const names = { ...write.ExpressionAttributeNames };
  const values = { ...write.ExpressionAttributeValues };
  let condition = 'attribute_exists(PK)';
  if (expected !== 'any') {
    const versions = versionsFor(expected, write.Key);
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
  // DynamoDB refuses an empty map of names or values: `*` alone adds neither.
  return {
    ...write,
    ConditionExpression: write.ConditionExpression ? `${grouped(write.ConditionExpression)} AND ${condition}` : condition,
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/** The stored version of an item as read (an item written before versions existed is version 0). */
/**
 * Whether what the request expects (`If-Match`, `expected_version`) holds for a resource kept
 * inside an item rather than as one (`item`: its name for its tags, lib/model/versions.ts; a custom
 * field on its project item), at `version`: its use case checks it on its read, and its write is
 * conditioned on that read. Marks the expectation checked when it holds.
 */
export function expectationHolds(item: string, version: number): boolean {
  const expected = expectedVersions();
  if (expected === undefined || expected === 'any') return true;
  const holds = Array.isArray(expected)
    ? expected.includes(version)
    : expected.tags.some((tag) => tag.version === version && tagCheck(item, tag.version, tag.digest) === tag.check);
  if (holds) versionChecked();
  return holds;
}

export const versionOf = (item: object): number => Number((item as Record<string, unknown>)[VERSION_ATTRIBUTE] ?? 0);

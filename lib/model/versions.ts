import { createHash } from 'node:crypto';

/**
 * What a resource answered from a stored item carries besides its JSON: the item's version and
 * which item it is (`answeredWith`; lib/db/core/versions.ts: `withVersion`), from which
 * lib/http/conditional.ts makes its ETag, and what an `If-Match` tag is (`VersionTag`, bound to its
 * item by `tagCheck`) and expects (`ExpectedVersions`: lib/db/core/versions.ts adds it to the condition
 * of the resource's write).
 */

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
 * The check code of a version tag: a hash of the item it is issued for (`item`: what names the
 * stored item, lib/db/core/versions.ts: `itemOf`), the version and the digest. Not a secret (anyone may
 * compute it, as anyone may read the current tag): it makes `If-Match` compare the whole tag, so
 * that a tag that was never issued for this item (a forged digest, a tag of another resource)
 * matches nothing.
 */
export function tagCheck(item: string, version: number, digest: string): string {
  return createHash('sha256').update(`${item}\u0000${version}\u0000${digest}`).digest('base64url').slice(0, CHECK_LENGTH);
}

const VERSION = Symbol('version');

/** What a resource answered from a versioned item carries besides its JSON. */
export interface AnsweredVersion {
  version: number;
  /** The item it was answered from, when known (`tagCheck`): what its tag is issued for. */
  item: string | undefined;
}

/**
 * The resource (as answered) with the version of the item it was read from, or written as, and
 * which item that is: kept out of its JSON, read by the ETag (lib/http/conditional.ts). Without
 * an item it gets a version but no tag `If-Match` accepts.
 */
export function answeredWith<T extends object>(resource: T, answered: AnsweredVersion): T {
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

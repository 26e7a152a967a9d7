import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { answeredVersion, type ExpectedVersions } from '../db/versions.ts';
import { PreconditionFailedError } from '../domain/errors.ts';

type Headers = Pick<APIGatewayProxyEvent, 'headers'>;

/** A request header, matched case-insensitively (API Gateway passes names as the client sent them). */
function header(event: Headers, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
}

/** The entity tags of an `If-Match` / `If-None-Match` list, `W/` dropped (a weak comparison for If-None-Match). */
const tagsOf = (value: string) =>
  value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter((tag) => tag !== '');

/**
 * Whether the request's `If-None-Match` names `etag` (or is `*`), so that a cacheable response
 * can be a 304 with no body.
 */
export function isNotModified(event: Headers, etag: string): boolean {
  const ifNoneMatch = header(event, 'if-none-match');
  return ifNoneMatch !== undefined && tagsOf(ifNoneMatch).some((tag) => tag === etag || tag === '*');
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * The strong ETag of an answer. A resource read from or written to a versioned item (lib/db/versions.ts)
 * gets `"<version>-<digest>"`: the version is what `If-Match` checks inside the write, the digest
 * of the JSON makes the tag change whenever what it shows changes. Anything else (a list page, a
 * report) gets `"<digest>"` of its JSON and of the headers that describe it (`Link`,
 * `X-Total-Count`...), so a page whose items stay but whose total moved is a new page.
 */
export function etagOf(body: unknown, headers: Record<string, string> = {}): string {
  const json = JSON.stringify(body);
  const version = answeredVersion(body);
  if (version !== undefined) return `"${version}-${digest(json)}"`;
  const described = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-type')
    .sort(([a], [b]) => a.localeCompare(b));
  return `"${digest(JSON.stringify([json, described]))}"`;
}

/**
 * What the request's `If-Match` expects of the resource a conditional write changes: undefined
 * without the header, `any` for `*`, else the versions of the tags it lists. A header none of whose
 * tags this API issued for a resource is 412 at once (nothing is written).
 */
export function expectedVersions(event: Headers): ExpectedVersions | undefined {
  const ifMatch = header(event, 'if-match');
  if (ifMatch === undefined) return undefined;
  const tags = tagsOf(ifMatch);
  if (tags.includes('*')) return 'any';
  const versions = tags.flatMap((tag) => {
    const m = /^"(\d{1,15})-[\w-]+"$/.exec(tag);
    return m ? [Number(m[1])] : [];
  });
  if (versions.length === 0) throw new PreconditionFailedError();
  return [...new Set(versions)];
}

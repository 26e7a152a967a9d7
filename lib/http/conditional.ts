import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { answeredAt, CHECK_LENGTH, sameVersion, tagCheck, type ExpectedVersions, type VersionTag } from '../model/versions.ts';
import { PreconditionFailedError } from '../vocabulary/errors.ts';

type Headers = Pick<APIGatewayProxyEvent, 'headers'>;

/** A request header, matched case-insensitively (API Gateway passes names as the client sent them). */
function header(event: Headers, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
}

/** The entity tags of a list header (`If-Match`, `If-None-Match`), as sent (`W/` kept). */
const tagsOf = (value: string) =>
  value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

/**
 * Whether the request's `If-None-Match` names `etag` (or is `*`), so that a cacheable response
 * can be a 304 with no body. A weak comparison (RFC 9110): `W/"x"` names `"x"`.
 */
export function isNotModified(event: Headers, etag: string): boolean {
  const ifNoneMatch = header(event, 'if-none-match');
  return ifNoneMatch !== undefined && tagsOf(ifNoneMatch).some((tag) => tag.replace(/^W\//, '') === etag || tag === '*');
}

/** Characters of the digest of a version tag (before its check code). */
const DIGEST_LENGTH = 16;

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

/**
 * The strong ETag of an answer. A resource read from or written to a versioned item (`withVersion`, lib/model/versions.ts)
 * gets `"<version>-<digest><check>"`: the version is what `If-Match` checks inside the write; the
 * digest of the JSON makes the tag change whenever what it shows changes; the check (`tagCheck`)
 * binds the three to the item, so that `If-Match` compares the whole tag without reading the item.
 * Anything else (a list page, a report) gets `"<digest>"` of its JSON and of the headers that
 * describe it (`Link`, `X-Total-Count`...), so a page whose items stay but whose total moved is a
 * new page.
 */
export function etagOf(body: unknown, headers: Record<string, string> = {}): string {
  const json = JSON.stringify(body);
  const answered = answeredAt(body);
  if (answered?.item !== undefined) {
    const shown = digest(json, DIGEST_LENGTH);
    return `"${answered.version}-${shown}${tagCheck(answered.item, answered.version, shown)}"`;
  }
  const described = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-type')
    .sort(([a], [b]) => a.localeCompare(b));
  return `"${digest(JSON.stringify([json, described]), DIGEST_LENGTH + CHECK_LENGTH)}"`;
}

const VERSION_TAG = new RegExp(`^"(\\d{1,15})-([\\w-]{${DIGEST_LENGTH}})([\\w-]{${CHECK_LENGTH}})"$`);

/** A version tag (`etagOf`) taken apart; undefined for anything else, a weak tag included. */
export function versionTagOf(tag: string): VersionTag | undefined {
  const m = VERSION_TAG.exec(tag);
  return m ? { version: Number(m[1]), digest: m[2]!, check: m[3]! } : undefined;
}

/**
 * What the request's `If-Match` expects of the resource a conditional write changes: undefined
 * without the header, `any` for `*` (the resource exists: a write of one that is gone is 404),
 * else the version tags it lists, compared strongly (RFC 9110): a weak tag (`W/"…"`) matches
 * nothing. `*` is the whole field or nothing (RFC 9110 §13.1.1: `"*" / #entity-tag`): a list that
 * holds it beside tags is neither form, a condition that is false, so 412. A header that lists no
 * version tag is 412 at once; the write keeps those issued for its item and requires the item to
 * be at one of their versions (lib/db/core/versions.ts), else 412 and nothing is written.
 */
export function expectedVersions(event: Headers): ExpectedVersions | undefined {
  const ifMatch = header(event, 'if-match');
  if (ifMatch === undefined) return undefined;
  const tags = tagsOf(ifMatch);
  if (tags.length === 1 && tags[0] === '*') return 'any';
  if (tags.includes('*')) throw new PreconditionFailedError();
  const parsed = tags.flatMap((tag) => versionTagOf(tag) ?? []);
  if (parsed.length === 0) throw new PreconditionFailedError();
  return { tags: parsed };
}

/** The fields of an answer that are shown once and never digested into a header. */
const SHOWN_ONCE = ['secret', 'token'];

/**
 * The ETag of an answer that carries a secret (a webhook with its signing secret): the tag of the
 * resource as a GET shows it, the secret left out, so that the header fingerprints nothing secret;
 * undefined for an answer that is no versioned resource (a new account with its token).
 */
export function secretFreeTag(body: unknown): string | undefined {
  if (answeredAt(body)?.item === undefined) return undefined;
  const shown = Object.fromEntries(Object.entries(body as object).filter(([name]) => !SHOWN_ONCE.includes(name)));
  return etagOf(sameVersion(body as object, shown));
}

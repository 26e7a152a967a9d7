import { describe, expect, it } from 'vitest';
import { keys } from '../../lib/db/core/keys.ts';
import { expectingVersion } from '../../lib/context/versions.ts';
import { grouped, guardVersion, withVersion } from '../../lib/db/core/versions.ts';
import { PreconditionFailedError } from '../../lib/vocabulary/errors.ts';
import { etagOf, expectedVersions, isNotModified, versionTagOf } from '../../lib/http/conditional.ts';

const issueKey = keys.issue(1, 2, 3);
const otherKey = keys.issue(1, 2, 4);
const tagAt = (version: number, key = issueKey, body: object = { id: 3, title: 'Land' }) =>
  etagOf(withVersion({ ...body }, { ...key, version }));
const ifMatch = (value: string) => ({ headers: { 'If-Match': value } });
const write = (key = issueKey, condition?: string) => ({
  Key: key,
  ...(condition === undefined ? {} : { ConditionExpression: condition }),
  ExpressionAttributeValues: undefined as Record<string, unknown> | undefined,
});

/** The write of the item at `key` as guarded for a request whose If-Match is `value`. */
const guardedFor = (value: string, key = issueKey, condition?: string) =>
  expectingVersion(expectedVersions(ifMatch(value)), async () => guardVersion(write(key, condition)));

describe('version tags', () => {
  it('are "<version>-<digest><check>" for a resource answered with its key, and parse back', () => {
    const tag = tagAt(4);
    expect(tag).toMatch(/^"4-[\w-]{22}"$/);
    expect(versionTagOf(tag)).toEqual({ version: 4, digest: tag.slice(3, 19), check: tag.slice(19, 25) });
    expect(versionTagOf(`W/${tag}`)).toBeUndefined();
    expect(versionTagOf('"4-short"')).toBeUndefined();
  });

  it('change with what the resource shows, its version and its item', () => {
    expect(tagAt(4)).not.toBe(tagAt(5));
    expect(tagAt(4)).not.toBe(tagAt(4, otherKey));
    expect(tagAt(4)).not.toBe(tagAt(4, issueKey, { id: 3, title: 'Other' }));
    expect(tagAt(4)).toBe(tagAt(4));
  });

  it('are plain digests for an answer without an item key (a list), which If-Match never accepts', async () => {
    const tag = etagOf(withVersion({ id: 3 }, { version: 4 }));
    expect(versionTagOf(tag)).toBeUndefined();
    expect(() => expectedVersions(ifMatch(tag))).toThrow(PreconditionFailedError);
  });
});

describe('If-Match, as the write of the resource checks it', () => {
  it('requires the version of a tag issued for the item written', async () => {
    const guarded = await guardedFor(tagAt(4));
    expect(guarded?.ConditionExpression).toBe('attribute_exists(PK) AND (#expected_version = :expected_version_0)');
    expect(guarded?.ExpressionAttributeValues).toEqual({ ':expected_version_0': 4 });
  });

  it('accepts version 0 also for an item written before versions existed, in one flat group', async () => {
    const guarded = await guardedFor(tagAt(0), issueKey, '(attribute_not_exists(x) OR x = :x)');
    expect(guarded?.ConditionExpression).toBe(
      '(attribute_not_exists(x) OR x = :x) AND attribute_exists(PK) AND ' +
        '(attribute_not_exists(#expected_version) OR #expected_version = :expected_version_0)',
    );
    expect(guarded?.ConditionExpression).not.toMatch(/\(\(/);
  });

  it('refuses (nothing to send) a forged digest, a forged check, or a tag issued for another item', async () => {
    const tag = tagAt(4);
    const forgedDigest = `"4-${'A'.repeat(16)}${tag.slice(19, 25)}"`;
    const forgedCheck = `${tag.slice(0, 19)}AAAAAA"`;
    expect(await guardedFor(forgedDigest)).toBeUndefined();
    expect(await guardedFor(forgedCheck)).toBeUndefined();
    expect(await guardedFor(tag, otherKey)).toBeUndefined();
  });

  it('compares strongly: a weak tag matches nothing, alone (412 at once) or beside a valid one', async () => {
    expect(() => expectedVersions(ifMatch(`W/${tagAt(4)}`))).toThrow(PreconditionFailedError);
    const guarded = await guardedFor(`W/${tagAt(5)}, ${tagAt(4)}`);
    expect(guarded?.ExpressionAttributeValues).toEqual({ ':expected_version_0': 4 });
  });

  it('takes a list as "any of the tags issued for this item", and `*` as "exists"', async () => {
    const guarded = await guardedFor(`"garbage", ${tagAt(7, otherKey)}, ${tagAt(3)}, ${tagAt(4)}`);
    expect(guarded?.ConditionExpression).toBe(
      'attribute_exists(PK) AND (#expected_version = :expected_version_0 OR #expected_version = :expected_version_1)',
    );
    expect(guarded?.ExpressionAttributeValues).toEqual({ ':expected_version_0': 3, ':expected_version_1': 4 });
    expect((await guardedFor('*'))?.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('takes an expected_version (MCP) as the version itself, 0 included', async () => {
    const guarded = await expectingVersion([0], async () => guardVersion(write()));
    expect(guarded?.ConditionExpression).toBe(
      'attribute_exists(PK) AND (attribute_not_exists(#expected_version) OR #expected_version = :expected_version_0)',
    );
  });
});

describe('If-None-Match', () => {
  it('compares weakly: W/ names the same tag', () => {
    const tag = tagAt(4);
    expect(isNotModified({ headers: { 'If-None-Match': `W/${tag}` } }, tag)).toBe(true);
    expect(isNotModified({ headers: { 'If-None-Match': `"other", ${tag}` } }, tag)).toBe(true);
    expect(isNotModified({ headers: { 'If-None-Match': tagAt(5) } }, tag)).toBe(false);
  });
});

describe('grouped', () => {
  it('puts an expression in parentheses only when it is not already one group', () => {
    expect(grouped('a = :a')).toBe('(a = :a)');
    expect(grouped('(a OR b)')).toBe('(a OR b)');
    expect(grouped('(a OR b) AND (c OR d)')).toBe('((a OR b) AND (c OR d))');
  });
});

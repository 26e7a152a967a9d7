import { ValidationError } from '../../vocabulary/errors.ts';
import { collections, keys, listKeys, searchPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { batchGet } from '../core/transactions.ts';
import { openCursor, sealCursor } from '../core/cursors.ts';

/**
 * The organisation's search partition (`ORG#o#SEARCH`, lib/db/core/keys.ts): one record per issue, kept
 * by the `search-index` derivation in the issue's own transactions (lib/model/derivations.ts),
 * sorted on LSI1 by `updated_at` (`U#<updated_at>#<issue>#<project>`). A search page is one
 * consistent Query of it (at most SEARCH_SCAN records), beside one Query of the organisation's
 * projects (prefixes and label catalogues) and, for `sprint:active`, one BatchGet of the sprints
 * its records name. This file reads them; lib/services/search.ts decides.
 */

/** Records a search page looks through at most (each some 300 to 600 bytes: one Query call, under 1 MB). */
export const SEARCH_SCAN = 1000;

/** Where a page of the search partition starts: after a record, or an offset into an exactly sorted answer. */
export type SearchCursor = { kind: 'key'; at: SearchPlace; m: number } | { kind: 'offset'; o: number };

/** Where a record lies in the search partition (its key and its LSI1 sort key): where a page goes on. */
export interface SearchPlace {
  SK: string;
  LSK: string;
}

/** A record's place, as a cursor keeps it. */
export const placeOfRecord = (item: Record<string, unknown>): SearchPlace => ({ SK: String(item.SK), LSK: String(item.LSK) });

const CURSOR_SK = /^ISSUE#\d{10}#\d{10}$/;
const CURSOR_LSK = /^U#[\x21-\x7e]{1,100}$/;
const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

export function encodeSearchCursor(cursor: SearchCursor): string {
  const body = cursor.kind === 'key' ? { s: cursor.at.SK, k: cursor.at.LSK, m: cursor.m } : { o: cursor.o };
  return sealCursor(body);
}

/** A cursor of a search `next` link, or 422 (a forged key never reaches DynamoDB). */
export function decodeSearchCursor(cursor: string): SearchCursor {
  const opened = openCursor(cursor);
  if (typeof opened === 'object' && opened !== null && !Array.isArray(opened)) {
    const body = opened as Record<string, unknown>;
    // Exactly its keys: the partition read is always the caller's organisation's, never a cursor's.
    if (
      Object.keys(body).length === 3 &&
      typeof body.s === 'string' &&
      CURSOR_SK.test(body.s) &&
      typeof body.k === 'string' &&
      CURSOR_LSK.test(body.k) &&
      count(body.m)
    ) {
      return { kind: 'key', at: { SK: body.s, LSK: body.k }, m: body.m as number };
    }
    if (count(body.o) && Object.keys(body).length === 1) return { kind: 'offset', o: body.o as number };
  }
  throw new ValidationError(['cursor is not a cursor of this search: follow the next link as it is']);
}

export interface SearchRead {
  /** Records in the order read. */
  items: Record<string, unknown>[];
  /** The range goes on after the last item read. */
  more: boolean;
}

/**
 * Up to `limit` records of the search partition whose LSK lies in [`from`, `to`] (consistent),
 * newest update first (`descending`) or oldest first, after `after` (the keys of a record).
 * One Query call: `limit` records of at most 1 MB.
 */
export async function readSearchRecords(
  orgId: number,
  range: { from: string; to: string; descending: boolean },
  after: SearchPlace | undefined,
  limit: number,
): Promise<SearchRead> {
  const pk = searchPk(orgId);
  const items: Record<string, unknown>[] = [];
  let next: unknown;
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND LSK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': range.from, ':to': range.to },
      ScanIndexForward: !range.descending,
    },
    { start: after ? { PK: pk, SK: after.SK, LSK: after.LSK } : undefined, limit: () => limit },
    (page, _count, last) => {
      items.push(...page);
      next = last;
      return false;
    },
  );
  return { items, more: next !== undefined };
}

/** The LSK bounds of records updated in [fromMs, toMs) (ms since the epoch; open ends as given). */
export function searchRange(fromMs: number | undefined, toMs: number | undefined): { from: string; to: string } {
  const prefix = collections.search(0).prefix;
  const iso = (ms: number) => new Date(Math.min(Math.max(ms, 0), 253_402_300_799_999)).toISOString();
  return {
    from: fromMs === undefined ? prefix : `${prefix}${iso(fromMs)}`,
    // A record updated at `toMs` exactly sorts after `U#<toMs>` (its key goes on with `#`).
    to: toMs === undefined ? `${prefix}\uffff` : `${prefix}${iso(toMs)}`,
  };
}

/** The organisation's projects (prefixes and label catalogues), every one: one Query, consistent. */
export async function readProjects(orgId: number): Promise<Record<string, unknown>[]> {
  const collection = collections.projects(orgId);
  const items: Record<string, unknown>[] = [];
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
    },
    {},
    (page) => {
      items.push(...page);
    },
  );
  return items;
}

/** The sprints named (project and sprint ids), in one BatchGet round. */
export async function readSprints(orgId: number, sprints: { projectId: number; sprintId: number }[]) {
  const found = await batchGet(sprints.map((s) => keys.sprint(orgId, s.projectId, s.sprintId)));
  return found.filter((s): s is Record<string, unknown> => s !== undefined);
}

/** The LSK of a record (for tests and the bench: where a record sorts). */
export const searchKeyOf = listKeys.searchIssue;

import { ValidationError } from '../../vocabulary/errors.ts';
import type { Collection, Key } from './keys.ts';
import { queryPages } from './query.ts';
import { batchGet } from './transactions.ts';
import { openCursor, sealCursor } from './cursors.ts';

/** Which page of a collection to read: `page`/`per_page`, or the opaque cursor of a `next` link. */
export interface PageRequest {
  page: number;
  perPage: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the page after this one; absent on the last page. */
  nextCursor?: string | undefined;
  /**
   * The cursor that continues right after `items[index]`: a page cut short by the response byte
   * budget (lib/http/byte-budget.ts) goes on from its last item shown, not from the end of the read.
   */
  cursorAfter: (index: number) => string;
}

/**
 * A list stops reading the table once it holds this many bytes of items (as JSON): more than any
 * response may carry (RESPONSE_BYTE_BUDGET, lib/http/byte-budget.ts), so the page that follows is
 * cut by the budget anyway and continues from its cursor.
 */
export const MAX_READ_BYTES = 6 * 1024 * 1024;

/** Where a `next` link goes on: the key of the last item shown; lists that number their items add counts. */
export interface CursorBody {
  PK: string;
  SK: string;
  LSK: string;
  /** Items of the collection up to and including that one (issue lists: the place of the last item). */
  n?: number | undefined;
  /** Matches of a filtered list up to that item. */
  m?: number | undefined;
}

/** The opaque cursor of a `next` link: the item's key values (by place, no names) and counts, sealed (cursors.ts). */
export const encodeCursor = (
  key: { PK?: unknown; SK?: unknown; LSK?: unknown },
  counts: { n?: number; m?: number } = {},
): string => sealCursor([key.PK, key.SK, key.LSK, counts.n ?? null, counts.m ?? null]);

/** The cursor after each item of a page read from the table (every item carries its keys). */
const cursorsOf =
  (items: Record<string, unknown>[]) =>
  (index: number): string =>
    encodeCursor(items[index] ?? {});

/**
 * The base-table sort key of any listed item (`PROJECT#p`, `ACCOUNT#a`, `SPRINT#s`, `ISSUE#i`,
 * `ISSUE#i#C#c`, an assigned issue's `ISSUE#p#i`, an activity entry's `ISSUE#i#A#<sequence>` or
 * `SPRINT#s#A#<sequence>`, its sequence a stream's or an import's: lib/db/issues/activity.ts; a
 * notification's `NOTE#p#i#<sequence>`), and an LSI1
 * key's shape: visible ASCII, short. A forged cursor must be refused here as 422: DynamoDB would
 * answer a ValidationException (a 500) to an empty key or one over its 1,024-byte sort key limit.
 */
const CURSOR_SK = /^[A-Z]{1,16}#\d{10}(?:#(?:C#)?\d{10}|#A#[#$\d]{1,40}|#\d{10}#\d{40})?$/;
const CURSOR_LSK = /^[\x21-\x7e]{1,128}$/;

const count = (v: unknown) => (v === undefined ? true : Number.isSafeInteger(v) && (v as number) >= 0);

/** A cursor of this collection, or 422. */
export function decodeCursor(cursor: string, collection: Collection): CursorBody {
  const opened = openCursor(cursor);
  if (Array.isArray(opened) && opened.length === 5) {
    const [PK, SK, LSK, n, m] = opened as unknown[];
    const body = { PK, SK, LSK, n: n ?? undefined, m: m ?? undefined } as Partial<CursorBody>;
    if (
      body.PK === collection.pk &&
      typeof body.SK === 'string' &&
      CURSOR_SK.test(body.SK) &&
      typeof body.LSK === 'string' &&
      CURSOR_LSK.test(body.LSK) &&
      body.LSK.startsWith(collection.prefix) &&
      count(body.n) &&
      count(body.m)
    ) {
      return { PK: body.PK, SK: body.SK, LSK: body.LSK, n: body.n, m: body.m };
    }
  }
  throw new ValidationError(['cursor is not valid for this collection']);
}

/**
 * The keys of page `page` (`perPage` keys after the first (page - 1) x perPage), read from
 * LSI1Keys (KEYS_ONLY): a deep page never reads the items it skips. `more` tells whether the
 * collection goes on after them.
 */
async function keysOfPage(collection: Collection, req: PageRequest): Promise<{ pageKeys: CursorBody[]; more: boolean }> {
  const skip = (req.page - 1) * req.perPage;
  // One key past the page: whether the collection goes on is then known, not guessed.
  let remaining = skip + req.perPage + 1;
  let seen = 0;
  const pageKeys: CursorBody[] = [];
  await queryPages(
    {
      IndexName: 'LSI1Keys',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
    },
    { limit: () => remaining },
    (page) => {
      for (const item of page) {
        if (seen++ >= skip) pageKeys.push({ PK: String(item.PK), SK: String(item.SK), LSK: String(item.LSK) });
      }
      remaining -= page.length;
      return remaining > 0;
    },
  );
  const more = pageKeys.length > req.perPage;
  return { pageKeys: pageKeys.slice(0, req.perPage), more };
}

/** A page and the related items read with it (undefined where absent), in the order asked for. */
export interface PageWithRelated<T> {
  page: Page<T>;
  related: (Record<string, unknown> | undefined)[];
}

/**
 * Reads one page of a collection together with a few related items (the ancestors a list checks,
 * whose counters give `X-Total-Count`), in two DynamoDB calls whatever the page:
 * - first page, or a `next` link's cursor: the LSI1 Query and a BatchGet of the related items,
 *   in parallel (one round trip);
 * - `page=N` without a cursor: a keys-only Query that skips N-1 pages, then one BatchGet of the
 *   page's items and the related items together.
 */
export async function listPageWith<T = Record<string, unknown>>(
  collection: Collection,
  req: PageRequest,
  related: Key[],
): Promise<PageWithRelated<T>> {
  if (req.cursor || req.page <= 1) {
    const [page, found] = await Promise.all([listPage<T>(collection, req), batchGet(related)]);
    return { page, related: found };
  }
  const { pageKeys, more } = await keysOfPage(collection, req);
  const found = await batchGet([...pageKeys, ...related]);
  // An item moved or deleted between the two reads is left out of this page, not shown misplaced.
  const items = found
    .slice(0, pageKeys.length)
    .filter(
      (item): item is Record<string, unknown> => item !== undefined && String(item.LSK ?? '').startsWith(collection.prefix),
    );
  const last = pageKeys.at(-1);
  return {
    page: { items: items as T[], nextCursor: more && last ? encodeCursor(last) : undefined, cursorAfter: cursorsOf(items) },
    related: found.slice(pageKeys.length),
  };
}

/**
 * Reads one page of a collection in list order (LSI1, consistent). With a cursor this costs one
 * Query of `perPage` items; `page=N` without a cursor reads the page through its keys (see
 * `listPageWith`).
 */
export async function listPage<T = Record<string, unknown>>(collection: Collection, req: PageRequest): Promise<Page<T>> {
  let start: Record<string, unknown> | undefined;
  if (req.cursor) {
    const { PK, SK, LSK } = decodeCursor(req.cursor, collection);
    start = { PK, SK, LSK };
  } else if (req.page > 1) {
    return (await listPageWith<T>(collection, req, [])).page;
  }
  const items: Record<string, unknown>[] = [];
  let bytes = 0;
  // One item past the page tells whether the collection goes on (DynamoDB returns a
  // LastEvaluatedKey whenever Limit was reached, even at the very end). A 1 MB response may stop
  // short; keep reading until the page is full, or until what was read is more than one response
  // could carry anyway (the byte budget then ends the page early: no point reading 100 items of
  // 300 KB to show a dozen).
  const next = await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.prefix },
    },
    { start, limit: () => req.perPage + 1 - items.length },
    (page) => {
      for (const item of page) bytes += Buffer.byteLength(JSON.stringify(item));
      items.push(...page);
      return items.length <= req.perPage && bytes < MAX_READ_BYTES;
    },
  );
  const more = items.length > req.perPage || next !== undefined;
  const shown = items.slice(0, req.perPage);
  const last = shown.at(-1);
  return { items: shown as T[], nextCursor: more && last ? encodeCursor(last) : undefined, cursorAfter: cursorsOf(shown) };
}

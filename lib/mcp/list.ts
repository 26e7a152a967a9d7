import * as z from 'zod';
import type { Page, PageRequest } from '../db/core/list.ts';
import { ValidationError } from '../vocabulary/errors.ts';
import { itemsWithinBudget, mcpItemBytes, RESPONSE_BYTE_BUDGET } from '../http/byte-budget.ts';
import { openCursor, sealCursor } from '../db/core/cursors.ts';

/**
 * A `limit` argument from 1 to `max`, `fallback` when absent. What it means, its range and its
 * default are said once, in the server's instructions (lib/mcp/server.ts), not in every list
 * tool's schema: a refinement and a transform, unlike `min`, `max` and `default`, are not listed.
 */
export const limitInput = (max: number, fallback: number) =>
  z
    .number()
    .int()
    .refine((n) => n >= 1 && n <= max, { error: `must be between 1 and ${max}` })
    .optional()
    .transform((n) => n ?? fallback);

/** `limit`/`cursor` arguments of every list tool. */
export const listInput = {
  limit: limitInput(100, 50),
  cursor: z.string().max(4096).optional(),
};

/** Where a list stands, returned beside the items of every list tool. */
export const listInfo = {
  total: z.number().int().describe('Items in the whole collection, before any filter.'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` to get more; null when the collection is exhausted.'),
};

/** One page of a collection as the domain serves it (the same call the REST handlers make). */
export type DomainList<T> = (page: PageRequest) => Promise<{ page: Page<unknown>; items: T[]; total: number }>;

/**
 * The tool cursor: the domain's cursor of where to go on (`c`) and how many items precede it (`n`),
 * so the end is known from the total without a trailing empty page.
 */
interface ToolCursor {
  c: string;
  n: number;
}

function decode(cursor: string | undefined): ToolCursor | undefined {
  if (cursor === undefined) return undefined;
  const raw = (openCursor(cursor) ?? {}) as Partial<ToolCursor>;
  if (typeof raw.c === 'string' && Number.isSafeInteger(raw.n) && Number(raw.n) >= 0) return { c: raw.c, n: Number(raw.n) };
  throw new ValidationError(['cursor is not valid for this collection']);
}

const encode = (cursor: ToolCursor) => sealCursor(cursor);

/**
 * Reads the next `limit` items of a collection through the domain's list function: one domain
 * call, so a call costs what a REST page costs. A filter keeps the matches among those items, so a
 * filtered call may return fewer than `limit`, even none, while `next_cursor` says there is more
 * to look through. The matches returned stay within the response byte budget, counted as a tool
 * result carries them (twice: structured and as text; lib/http/byte-budget.ts): past it the call
 * stops early and `next_cursor` continues right after the last item looked at.
 */
export async function listThrough<T>(
  args: { limit: number; cursor?: string | undefined },
  list: DomainList<T>,
  filter?: (item: T) => boolean,
): Promise<{ items: T[]; total: number; next_cursor: string | null }> {
  const at = decode(args.cursor);
  const result = await list({ page: 1, perPage: args.limit, cursor: at?.c });
  const items: T[] = [];
  let used = 0;
  let looked = 0;
  for (const item of result.items) {
    if (!filter || filter(item)) {
      used += mcpItemBytes(item) + 1;
      if (used > RESPONSE_BYTE_BUDGET && items.length > 0) break;
      items.push(item);
    }
    looked++;
  }
  const seen = (at?.n ?? 0) + looked;
  if (looked < result.items.length) {
    return { items, total: result.total, next_cursor: encode({ c: result.page.cursorAfter(looked - 1), n: seen }) };
  }
  const more = result.page.nextCursor !== undefined && seen < result.total;
  return { items, total: result.total, next_cursor: more ? encode({ c: result.page.nextCursor as string, n: seen }) : null };
}

/**
 * A page the domain has already cut where a filter left it (filtered issue lists, whose own cursor
 * carries the places and matches before it, passed through as the tool's cursor): kept within the
 * response byte budget as a tool result counts it, going on right after the last item returned.
 */
export function filteredPage<T>(result: { page: Page<unknown>; items: T[]; total: number }) {
  const fitting = itemsWithinBudget(result.items, mcpItemBytes);
  const next = fitting < result.items.length ? result.page.cursorAfter(fitting - 1) : result.page.nextCursor;
  return { items: result.items.slice(0, fitting), total: result.total, next_cursor: next ?? null };
}

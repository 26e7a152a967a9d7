import type { Page, PageRequest } from '../db/core/list.ts';
import { parseOrThrow } from '../schemas/validate.ts';
import { publicUrl } from '../config.ts';
import { itemsWithinBudget, restItemBytes } from './byte-budget.ts';
import type { ApiRequest, ApiResult } from './stack.ts';

/** Loaded on the first list request: zod and the schemas stay out of the cold start (tools/bench/README.md). */
const schemas = () => import('../schemas/common.ts');

/** `page`, `per_page` (clamped to 100) and the `next` link's cursor, validated (422 otherwise). */
export async function pageRequest(req: ApiRequest): Promise<PageRequest> {
  const q = parseOrThrow((await schemas()).PaginationQuery, req.query, false);
  return { page: q.page, perPage: q.per_page, cursor: q.cursor };
}

/**
 * A 200 with a page of a collection: the JSON array, plus `Link` (first/prev/next/last),
 * `X-Total-Count`, `X-Page` and `X-Per-Page`. Totals come from counters, not from counting items.
 *
 * The page stops before its items would pass the response byte budget (lib/http/byte-budget.ts):
 * it then holds fewer than `per_page` items, `X-Per-Page` says how many, and `next` continues
 * exactly after the last one shown. Page numbers (`page=N`, `last`) stay offsets of `per_page`
 * items; a cursor decides where a `next` page starts, whatever its number says.
 *
 * A filtered page (`filter`: its query parameters, kept in every link) links `first` and, while
 * there is more to look through, `next` by cursor only: its total is not known ahead.
 */
export function pageResult<T>(
  req: ApiRequest,
  pr: PageRequest,
  page: Page<unknown>,
  items: T[],
  total: number,
  filter?: Record<string, string>,
): ApiResult {
  const fitting = itemsWithinBudget(items, restItemBytes);
  const shown = fitting < items.length ? items.slice(0, fitting) : items;
  const nextCursor = fitting < items.length ? page.cursorAfter(fitting - 1) : page.nextCursor;
  const last = Math.max(1, Math.ceil(total / pr.perPage));
  const base = baseUrl(req);
  const link = (p: number, cursor?: string) => {
    const q = new URLSearchParams({ ...filter, page: String(p), per_page: String(pr.perPage) });
    if (cursor) q.set('cursor', cursor);
    return `<${base}?${q.toString()}>`;
  };
  const links = [`${link(1)}; rel="first"`];
  if (filter) {
    if (nextCursor) links.push(`${link(pr.page + 1, nextCursor)}; rel="next"`);
  } else {
    if (pr.page > 1) links.push(`${link(Math.min(pr.page - 1, last))}; rel="prev"`);
    if (nextCursor) links.push(`${link(pr.page + 1, nextCursor)}; rel="next"`);
    links.push(`${link(last)}; rel="last"`);
  }
  return {
    status: 200,
    body: shown,
    headers: {
      Link: links.join(', '),
      'X-Total-Count': String(total),
      'X-Page': String(pr.page),
      'X-Per-Page': String(shown === items ? pr.perPage : shown.length),
    },
  };
}

/**
 * The list's own address: the service's configured base URL (`PUBLIC_URL`, which holds the stage on
 * API Gateway's own host) and the route's path, never the request's `Host`, which any client may forge.
 */
function baseUrl(req: ApiRequest): string {
  return `${publicUrl()}${req.event.path}`;
}

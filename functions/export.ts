import { routeHandler } from '../lib/http/stack.ts';
import { exportPage } from '../lib/services/import-export/export-pages.ts';
import { parseOrThrow } from '../lib/schemas/validate.ts';

/**
 * `GET /export`: a page of the organisation's export (docs/import-export.md). A function of its own:
 * it carries the whole read side of the data layer, which the import upload's bundle need not load.
 */
export const handler = routeHandler(async (req) => {
  const query = parseOrThrow((await import('../lib/schemas/export.ts')).ExportQuery, req.query, false);
  const page = await exportPage(req.principal, query);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' };
  if (page.next) {
    const perPage = query.per_page === undefined ? '' : `&per_page=${query.per_page}`;
    headers.Link = `</api/v1/export?cursor=${page.next}${perPage}>; rel="next"`;
  }
  return { status: 200, text: page.text, headers };
});

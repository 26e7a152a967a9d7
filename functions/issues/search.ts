import { pageResult } from '../../lib/http/pagination.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/**
 * Loaded on the first request, like the pagination schemas (tools/bench/README.md): the schemas,
 * and the grammar and search (whose JSON form is a zod schema).
 */
const schemas = () => import('../../lib/schemas/search.ts');
const grammar = () => import('../../lib/model/selection.ts');
const search = () => import('../../lib/services/search.ts');

/**
 * `GET /api/v1/issues?q=…` and `POST /api/v1/issues/search` (the same selection as JSON): one
 * function for both, the query string parsed into the JSON form the body gives, one evaluator
 * (docs/search.md). A `next` link is the GET form of the search, its query the canonical one.
 */
export const handler = routeHandler(
  async (req) => {
    const [{ SearchQuery, SearchBody }, { parseSelection, printSelection, validateSelection }, { searchIssues }] =
      await Promise.all([schemas(), grammar(), search()]);
    const query = parseOrThrow(SearchQuery, req.query, false);
    let selection;
    let perPage = query.per_page;
    let cursor = query.cursor;
    if (req.event.httpMethod === 'POST') {
      const body = parseOrThrow(SearchBody, req.body, false);
      const { per_page, cursor: bodyCursor, ...rest } = body;
      selection = validateSelection(rest);
      perPage = Math.min(per_page ?? 25, 100);
      cursor = bodyCursor;
    } else {
      selection = parseSelection(query.q ?? '');
    }
    const found = await searchIssues(req.principal, selection, { perPage, cursor, pageNumber: query.page });
    const pr = { page: req.event.httpMethod === 'POST' ? 1 : query.page, perPage, cursor };
    const page = { items: found.items, nextCursor: found.nextCursor, cursorAfter: found.cursorAfter };
    // Links go to the GET form, with the canonical query: following them needs no body.
    const event = {
      ...req.event,
      requestContext: { ...req.event.requestContext, path: '/api/v1/issues' },
      path: '/api/v1/issues',
    };
    return pageResult({ ...req, event }, pr, page, found.items, found.matched, { q: printSelection(selection) });
  },
  { body: bodySchema(() => import('../../lib/schemas/search.ts'), 'SearchBody', { wrapped: false }) },
);

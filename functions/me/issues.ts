import { listMyIssues } from '../../lib/services/my-issues.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request, like the pagination schemas (tools/bench/README.md). */
const schemas = () => import('../../lib/schemas/issues.ts');

/** The caller's assigned issues across the organisation's projects, newest update first, filtered by status, priority, type, due date, parent and labels. */
export const handler = routeHandler(async (req) => {
  const [pr, { query, filters }] = await Promise.all([
    pageRequest(req),
    schemas().then(({ MyIssuesQuery, myIssuesFilters }) => {
      const query = parseOrThrow(MyIssuesQuery, req.query, false);
      return { query, filters: myIssuesFilters(query) };
    }),
  ]);
  const { page, items, total } = await listMyIssues(req.principal, pr, filters);
  const params = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return pageResult(req, pr, page, items, total, filters ? params : undefined);
});

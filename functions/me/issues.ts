import { listMyIssues } from '../../lib/domain/my-issues.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import type { IssueStatus } from '../../lib/schemas/issues.ts';
import { labelFilterNames } from '../../lib/schemas/label-limits.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request, like the pagination schemas (infra/bench/README.md). */
const schemas = () => import('../../lib/schemas/issues.ts');

/** The caller's assigned issues across the organisation's projects, newest update first, by status and labels. */
export const handler = routeHandler(async (req) => {
  const [pr, query] = await Promise.all([
    pageRequest(req),
    schemas().then(({ MyIssuesQuery }) => parseOrThrow(MyIssuesQuery, req.query, false)),
  ]);
  const statuses = query.status === undefined ? undefined : (query.status.split(',') as IssueStatus[]);
  const labels = query.labels === undefined ? undefined : labelFilterNames(query.labels);
  const { page, items, total } = await listMyIssues(req.principal, pr, statuses, labels);
  const filters = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return pageResult(req, pr, page, items, total, Object.keys(filters).length > 0 ? filters : undefined);
});

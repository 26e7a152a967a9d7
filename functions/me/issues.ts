import { listMyIssues } from '../../lib/domain/my-issues.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import type { IssueStatus } from '../../lib/schemas/issues.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request, like the pagination schemas (infra/bench/README.md). */
const schemas = () => import('../../lib/schemas/issues.ts');

/** The caller's assigned issues across the organisation's projects, newest update first, by status and parent. */
export const handler = routeHandler(async (req) => {
  const [pr, query] = await Promise.all([
    pageRequest(req),
    schemas().then(({ MyIssuesQuery }) => parseOrThrow(MyIssuesQuery, req.query, false)),
  ]);
  const statuses = query.status === undefined ? undefined : (query.status.split(',') as IssueStatus[]);
  const parentId = query.parent_id === undefined ? undefined : query.parent_id === 'none' ? null : Number(query.parent_id);
  const { page, items, total } = await listMyIssues(req.principal, pr, statuses, parentId);
  const filter = {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.parent_id === undefined ? {} : { parent_id: query.parent_id }),
  };
  return pageResult(req, pr, page, items, total, Object.keys(filter).length > 0 ? filter : undefined);
});

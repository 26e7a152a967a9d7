import { listIssues } from '../../lib/domain/issues.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

/** Lists the project backlog, ordered by position. */
export const handler = routeHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: null };
  const pr = await pageRequest(req);
  const { page, items, total } = await listIssues(req.principal, at, pr);
  return pageResult(req, pr, page, items, total);
});

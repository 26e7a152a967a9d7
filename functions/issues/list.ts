import { listIssues } from '../../lib/services/issues.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { issueFilters } from '../../lib/http/issue-filters.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

/** Lists a sprint's issues, in list order, filtered by status, assignee, title text, update time, priority, type and due date. */
export const handler = routeHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: pathId(req, 'sprint_id', 'Sprint') };
  const [pr, { filters, params, values }] = await Promise.all([pageRequest(req), issueFilters(req)]);
  const { page, items, total } = await listIssues(req.principal, at, pr, filters, values);
  return pageResult(req, pr, page, items, total, params);
});

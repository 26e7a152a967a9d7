import { listIssueActivity } from '../../lib/domain/activity.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** An issue's activity, under its sprint's path or the backlog's. */
export const handler = routeHandler(async (req) => {
  const at = {
    projectId: pathId(req, 'project_id', 'Project'),
    // absent on the backlog's path
    sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
    issueId: pathId(req, 'issue_id', 'Issue'),
  };
  const pr = await pageRequest(req);
  const { page, items, total } = await listIssueActivity(req.principal, at, pr);
  return pageResult(req, pr, page, items, total);
});

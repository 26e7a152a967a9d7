import { listIssueActivity, listSprintActivity } from '../../lib/services/activity.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * An issue's activity (under its sprint's path or the backlog's) and a sprint's own (its activation
 * and completion): one function for both reads, because the stack is near CloudFormation's 500
 * resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.params.issue_id === undefined) {
    const sprintId = pathId(req, 'sprint_id', 'Sprint');
    const pr = await pageRequest(req);
    const { page, items, total } = await listSprintActivity(req.principal, projectId, sprintId, pr);
    return pageResult(req, pr, page, items, total);
  }
  const at = {
    projectId,
    // absent on the backlog's path
    sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
    issueId: pathId(req, 'issue_id', 'Issue'),
  };
  const pr = await pageRequest(req);
  const { page, items, total } = await listIssueActivity(req.principal, at, pr);
  return pageResult(req, pr, page, items, total);
});

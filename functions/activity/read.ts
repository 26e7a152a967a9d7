import { listIssueActivity, listSprintActivity } from '../../lib/services/activity.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { issueTarget } from '../../lib/http/issue-target.ts';

/**
 * An issue's activity (under its sprint's path, the backlog's or its key's) and a sprint's own (its activation
 * and completion): one function for both reads, because the stack is near CloudFormation's 500
 * resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  if (req.params.issue_id === undefined && req.params.issue_key === undefined) {
    const projectId = pathId(req, 'project_id', 'Project');
    const sprintId = pathId(req, 'sprint_id', 'Sprint');
    const pr = await pageRequest(req);
    const { page, items, total } = await listSprintActivity(req.principal, projectId, sprintId, pr);
    return pageResult(req, pr, page, items, total);
  }
  const target = issueTarget(req);
  const pr = await pageRequest(req);
  const { page, items, total } = await onIssue(req.principal, target, (p) =>
    listIssueActivity(req.principal, { ...p.at, issueId: p.issueId }, pr),
  );
  return pageResult(req, pr, page, items, total);
});

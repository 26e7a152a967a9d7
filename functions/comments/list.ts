import { listComments } from '../../lib/domain/comments.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = routeHandler(async (req) => {
  const ref = {
    projectId: pathId(req, 'project_id', 'Project'),
    // absent on the backlog's path
    sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
    issueId: pathId(req, 'issue_id', 'Issue'),
  };
  const pr = await pageRequest(req);
  const { page, items, total } = await listComments(req.principal, ref, pr);
  return pageResult(req, pr, page, items, total);
});

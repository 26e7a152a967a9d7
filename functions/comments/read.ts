import { getComment, listComments } from '../../lib/services/comments.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * `GET /comments/{id}` (one comment, wherever it lives) and an issue's comments (under its sprint's
 * path or the backlog's): one function for both reads, because the stack is near CloudFormation's
 * 500 resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  if (req.params.id !== undefined) {
    return { status: 200, body: await getComment(req.principal, pathId(req, 'id', 'Comment')) };
  }
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

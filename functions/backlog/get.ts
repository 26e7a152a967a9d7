import { getIssue } from '../../lib/services/issues.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** An issue of the project backlog (404 if it lives elsewhere). */
export const handler = routeHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: null };
  return { status: 200, body: await getIssue(req.principal, at, pathId(req, 'issue_id', 'Issue')) };
});

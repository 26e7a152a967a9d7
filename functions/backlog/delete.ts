import { deleteIssue } from '../../lib/services/issues.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** Deletes an issue of the project backlog; its comments follow by cascade. */
export const handler = routeHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: null };
  await deleteIssue(req.principal, at, pathId(req, 'issue_id', 'Issue'));
  return { status: 204 };
});

import { deleteIssue } from '../../lib/domain/issues.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

/** Deletes an issue of the project backlog; its comments follow by cascade. */
export const handler = apiHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: null };
  await deleteIssue(req.principal, at, pathId(req, 'issue_id', 'Issue'));
  return { status: 204 };
});

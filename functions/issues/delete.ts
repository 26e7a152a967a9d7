import { deleteIssue } from '../../lib/domain/issues.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

/** Deletes an issue of a sprint's issues; its comments follow by cascade. */
export const handler = apiHandler(async (req) => {
  const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: pathId(req, 'sprint_id', 'Sprint') };
  await deleteIssue(req.principal, at, pathId(req, 'issue_id', 'Issue'));
  return { status: 204 };
});

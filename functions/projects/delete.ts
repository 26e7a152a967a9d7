import { deleteProject } from '../../lib/domain/projects.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => {
  await deleteProject(req.principal, pathId(req, 'project_id', 'Project'));
  return { status: 204 };
});

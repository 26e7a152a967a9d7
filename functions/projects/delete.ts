import { deleteProject } from '../../lib/services/projects.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await deleteProject(req.principal, pathId(req, 'project_id', 'Project'));
  return { status: 204 };
});

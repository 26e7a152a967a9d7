import { getProject } from '../../lib/domain/projects.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getProject(req.principal, pathId(req, 'project_id', 'Project')),
}));

import { getProject } from '../../lib/domain/projects.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => ({
  status: 200,
  body: await getProject(req.principal, pathId(req, 'project_id', 'Project')),
}));

import { updateProject } from '../../lib/services/projects.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const id = pathId(req, 'project_id', 'Project');
    const { project } = await req.input();
    return { status: 200, body: await updateProject(req.principal, id, project) };
  },
  { body: bodySchema(() => import('../../lib/schemas/projects.ts'), 'ProjectUpdateBody') },
);

import { updateSprint } from '../../lib/services/sprints.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

/** PATCH and PUT: the same partial update. */
export const handler = routeHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const id = pathId(req, 'sprint_id', 'Sprint');
    const { sprint } = await req.input();
    return { status: 200, body: await updateSprint(req.principal, projectId, id, sprint) };
  },
  { body: bodySchema(() => import('../../lib/schemas/sprints.ts'), 'SprintUpdateBody') },
);

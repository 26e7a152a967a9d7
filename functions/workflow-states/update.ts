import { updateState } from '../../lib/services/states.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

/** PATCH and PUT: the same partial update; issues in the state show a new name or colour at once. */
export const handler = routeHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const id = pathId(req, 'state_id', 'State');
    const { state } = await req.input();
    return { status: 200, body: await updateState(req.principal, projectId, id, state) };
  },
  { body: bodySchema(() => import('../../lib/schemas/states.ts'), 'StateUpdateBody') },
);

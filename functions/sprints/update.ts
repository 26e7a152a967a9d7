import { updateSprint } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/sprints.ts');

/** PATCH and PUT: the same partial update. */
export const handler = routeHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const id = pathId(req, 'sprint_id', 'Sprint');
    const { sprint } = parseOrThrow((await schemas()).SprintUpdateBody, req.body);
    return { status: 200, body: await updateSprint(req.principal, projectId, id, sprint) };
  },
  { body: true },
);

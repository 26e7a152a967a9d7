import { updateProject } from '../../lib/domain/projects.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/projects.ts');

export const handler = routeHandler(
  async (req) => {
    const id = pathId(req, 'project_id', 'Project');
    const { project } = parseOrThrow((await schemas()).ProjectUpdateBody, req.body);
    return { status: 200, body: await updateProject(req.principal, id, project) };
  },
  { body: true },
);

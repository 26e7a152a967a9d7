import { createSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/sprints.ts');

export const handler = apiHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { sprint } = parseOrThrow((await schemas()).SprintCreateBody, req.body);
    return { status: 201, body: await createSprint(req.principal, projectId, sprint) };
  },
  { body: true },
);

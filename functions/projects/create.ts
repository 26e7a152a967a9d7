import { createProject } from '../../lib/domain/projects.ts';
import { apiHandler } from '../../lib/http/handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/projects.ts');

export const handler = apiHandler(
  async (req) => {
    const { project } = parseOrThrow((await schemas()).ProjectCreateBody, req.body);
    return { status: 201, body: await createProject(req.principal, project) };
  },
  { body: true },
);

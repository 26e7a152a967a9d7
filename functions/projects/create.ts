import { createProject } from '../../lib/domain/projects.ts';
import { apiHandler } from '../../lib/http/handler.ts';
import { ProjectCreateBody } from '../../lib/schemas/projects.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const { project } = parseOrThrow(ProjectCreateBody, req.body);
    return { status: 201, body: await createProject(req.principal, project) };
  },
  { body: true },
);

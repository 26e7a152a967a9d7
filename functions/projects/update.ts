import { updateProject } from '../../lib/domain/projects.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { ProjectUpdateBody } from '../../lib/schemas/projects.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const id = pathId(req, 'id', 'Project');
    const { project } = parseOrThrow(ProjectUpdateBody, req.body);
    return { status: 200, body: await updateProject(req.principal, id, project) };
  },
  { body: true },
);

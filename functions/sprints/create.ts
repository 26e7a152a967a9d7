import { createSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { SprintCreateBody } from '../../lib/schemas/sprints.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { sprint } = parseOrThrow(SprintCreateBody, req.body);
    return { status: 201, body: await createSprint(req.principal, projectId, sprint) };
  },
  { body: true },
);

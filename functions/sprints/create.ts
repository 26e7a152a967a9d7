import { createSprint } from '../../lib/services/sprints.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { sprint } = await req.input();
    return { status: 201, body: await createSprint(req.principal, projectId, sprint) };
  },
  { body: bodySchema(() => import('../../lib/schemas/sprints.ts'), 'SprintCreateBody') },
);

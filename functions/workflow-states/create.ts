import { createState } from '../../lib/services/states.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';

export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { state } = await req.input();
    return { status: 201, body: await createState(req.principal, projectId, state) };
  },
  { body: bodySchema(() => import('../../lib/schemas/states.ts'), 'StateCreateBody') },
);

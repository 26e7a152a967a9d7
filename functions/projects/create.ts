import { createProject } from '../../lib/services/projects.ts';
import { bodySchema } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

export const handler = idempotentHandler(
  async (req) => {
    const { project } = await req.input();
    return { status: 201, body: await createProject(req.principal, project) };
  },
  { body: bodySchema(() => import('../../lib/schemas/projects.ts'), 'ProjectCreateBody') },
);

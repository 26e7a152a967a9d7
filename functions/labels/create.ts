import { createLabel } from '../../lib/services/labels.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';

export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { label } = await req.input();
    return { status: 201, body: await createLabel(req.principal, projectId, label) };
  },
  { body: bodySchema(() => import('../../lib/schemas/labels.ts'), 'LabelCreateBody') },
);

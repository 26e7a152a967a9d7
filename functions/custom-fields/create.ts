import { createField } from '../../lib/services/custom-fields.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';

export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const { field } = await req.input();
    return { status: 201, body: await createField(req.principal, projectId, field) };
  },
  { body: bodySchema(() => import('../../lib/schemas/custom-fields.ts'), 'FieldCreateBody') },
);

import { updateField } from '../../lib/services/custom-fields.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

/** PATCH and PUT: the same partial update; issues show a renamed field or option at once. */
export const handler = routeHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const id = pathId(req, 'field_id', 'Custom field');
    const { field } = await req.input();
    return { status: 200, body: await updateField(req.principal, projectId, id, field) };
  },
  { body: bodySchema(() => import('../../lib/schemas/custom-fields.ts'), 'FieldUpdateBody') },
);

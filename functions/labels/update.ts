import { updateLabel } from '../../lib/services/labels.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

/** PATCH and PUT: the same partial update; issues show a new name or colour at once. */
export const handler = routeHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const id = pathId(req, 'label_id', 'Label');
    const { label } = await req.input();
    return { status: 200, body: await updateLabel(req.principal, projectId, id, label) };
  },
  { body: bodySchema(() => import('../../lib/schemas/labels.ts'), 'LabelUpdateBody') },
);

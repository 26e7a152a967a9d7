import { deleteField } from '../../lib/services/custom-fields.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** The field goes at once; the cascade takes its values off its issues in the background. */
export const handler = routeHandler(async (req) => {
  await deleteField(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'field_id', 'Custom field'));
  return { status: 204 };
});

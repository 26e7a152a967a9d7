import { getField, listFields } from '../../lib/services/custom-fields.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * `GET …/fields` (the project's custom fields, in creation order) and `GET …/fields/{field_id}`
 * (one field): one function for both reads, as for labels and states (docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.params.field_id !== undefined) {
    return { status: 200, body: await getField(req.principal, projectId, pathId(req, 'field_id', 'Custom field')) };
  }
  return { status: 200, body: await listFields(req.principal, projectId) };
});

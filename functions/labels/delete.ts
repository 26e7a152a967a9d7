import { deleteLabel } from '../../lib/services/labels.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** The label goes at once; the cascade takes it off its issues in the background. */
export const handler = routeHandler(async (req) => {
  await deleteLabel(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'label_id', 'Label'));
  return { status: 204 };
});

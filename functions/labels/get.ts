import { getLabel } from '../../lib/domain/labels.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getLabel(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'label_id', 'Label')),
}));

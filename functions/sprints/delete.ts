import { deleteSprint } from '../../lib/services/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await deleteSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint'));
  return { status: 204 };
});

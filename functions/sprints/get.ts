import { getSprint } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

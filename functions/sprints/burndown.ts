import { getBurndown } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** Remaining open story points per UTC day, from the counters the sprint's writes keep. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getBurndown(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

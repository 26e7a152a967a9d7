import { getSprintReport } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** The report frozen when the sprint was completed. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getSprintReport(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

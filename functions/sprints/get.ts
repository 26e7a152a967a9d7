import { getSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => ({
  status: 200,
  body: await getSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

import { activateSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

/** `POST .../activate` and `POST .../activation`. */
export const handler = apiHandler(async (req) => ({
  status: 200,
  body: await activateSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

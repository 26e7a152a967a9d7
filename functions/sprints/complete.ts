import { completeSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

/** `POST .../complete` and `POST .../completion`. */
export const handler = apiHandler(async (req) => ({
  status: 200,
  body: await completeSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

import { deleteSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => {
  await deleteSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint'));
  return { status: 204 };
});

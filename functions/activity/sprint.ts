import { listSprintActivity } from '../../lib/domain/activity.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** A sprint's own activity: its activation and completion. */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const sprintId = pathId(req, 'sprint_id', 'Sprint');
  const pr = await pageRequest(req);
  const { page, items, total } = await listSprintActivity(req.principal, projectId, sprintId, pr);
  return pageResult(req, pr, page, items, total);
});

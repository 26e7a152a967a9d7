import { listSprints } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const pr = await pageRequest(req);
  const { page, items, total } = await listSprints(req.principal, projectId, pr);
  return pageResult(req, pr, page, items, total);
});

import { listProjects } from '../../lib/domain/projects.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = routeHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listProjects(req.principal, pr);
  return pageResult(req, pr, page, items, total);
});

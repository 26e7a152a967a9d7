import { listLabels } from '../../lib/domain/labels.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** A project's label catalogue, in creation order. */
export const handler = routeHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listLabels(req.principal, pathId(req, 'project_id', 'Project'), pr);
  return pageResult(req, pr, page, items, total);
});

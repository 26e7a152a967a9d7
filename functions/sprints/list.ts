import { listSprints } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = apiHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const pr = await pageRequest(req);
  const { page, items, total } = await listSprints(req.principal, projectId, pr);
  return pageResult(req, pr, page, items, total);
});

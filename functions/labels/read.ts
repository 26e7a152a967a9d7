import { getLabel, listLabels } from '../../lib/services/labels.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * `GET …/labels` (the catalogue, in creation order) and `GET …/labels/{label_id}` (one label): one
 * function for both reads, because the stack is near CloudFormation's 500 resources with CORS on (a
 * function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.params.label_id !== undefined) {
    return { status: 200, body: await getLabel(req.principal, projectId, pathId(req, 'label_id', 'Label')) };
  }
  const pr = await pageRequest(req);
  const { page, items, total } = await listLabels(req.principal, projectId, pr);
  return pageResult(req, pr, page, items, total);
});

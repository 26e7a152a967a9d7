import { getBurndown, getSprint, getSprintReport, listSprints } from '../../lib/services/sprints.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * A project's sprints, one sprint, its burndown (remaining open story points per UTC day, from the
 * counters the sprint's writes keep) and its report (frozen when it was completed): one function
 * for the four reads, because the stack is near CloudFormation's 500 resources with CORS on (a
 * function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.params.sprint_id === undefined) {
    const pr = await pageRequest(req);
    const { page, items, total } = await listSprints(req.principal, projectId, pr);
    return pageResult(req, pr, page, items, total);
  }
  const sprintId = pathId(req, 'sprint_id', 'Sprint');
  if (req.event.resource.endsWith('/burndown')) {
    return { status: 200, body: await getBurndown(req.principal, projectId, sprintId) };
  }
  if (req.event.resource.endsWith('/report')) {
    return { status: 200, body: await getSprintReport(req.principal, projectId, sprintId) };
  }
  return { status: 200, body: await getSprint(req.principal, projectId, sprintId) };
});

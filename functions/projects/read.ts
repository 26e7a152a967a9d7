import { getProject, listProjects } from '../../lib/services/projects.ts';
import { getVelocity } from '../../lib/services/sprints.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (tools/bench/README.md). */
const schemas = () => import('../../lib/schemas/sprint-outcomes.ts');

/**
 * `GET /projects` (the organisation's projects), `GET /projects/{project_id}` (one) and
 * `GET …/velocity` (its last completed sprints with their committed and completed points): one
 * function for the three reads, because the stack is near CloudFormation's 500 resources with CORS
 * on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  if (req.params.project_id === undefined) {
    const pr = await pageRequest(req);
    const { page, items, total } = await listProjects(req.principal, pr);
    return pageResult(req, pr, page, items, total);
  }
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.event.resource.endsWith('/velocity')) {
    const { sprints } = parseOrThrow((await schemas()).VelocityQuery, req.query, false);
    return { status: 200, body: await getVelocity(req.principal, projectId, sprints) };
  }
  return { status: 200, body: await getProject(req.principal, projectId) };
});

import { getVelocity } from '../../lib/domain/sprints.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (infra/bench/README.md). */
const schemas = () => import('../../lib/schemas/sprint-outcomes.ts');

/** The last completed sprints of a project with their committed and completed points. */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const { sprints } = parseOrThrow((await schemas()).VelocityQuery, req.query, false);
  return { status: 200, body: await getVelocity(req.principal, projectId, sprints) };
});

import { getConnection } from '../../lib/services/github.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getConnection(req.principal, pathId(req, 'project_id', 'Project')),
}));

import { disconnectRepository } from '../../lib/services/github.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await disconnectRepository(req.principal, pathId(req, 'project_id', 'Project'));
  return { status: 204 };
});

import { listRelations } from '../../lib/services/relations.ts';
import { issueKeyParam, routeHandler } from '../../lib/http/stack.ts';

/** An issue's relations (at most 50, oldest first), each as the issue sees it. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await listRelations(req.principal, issueKeyParam(req)),
}));

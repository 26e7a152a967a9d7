import { getComment } from '../../lib/domain/comments.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await getComment(req.principal, pathId(req, 'id', 'Comment')),
}));

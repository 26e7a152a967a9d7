import { deleteComment } from '../../lib/services/comments.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await deleteComment(req.principal, pathId(req, 'id', 'Comment'));
  return { status: 204 };
});

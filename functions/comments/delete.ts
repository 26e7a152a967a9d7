import { deleteComment } from '../../lib/domain/comments.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => {
  await deleteComment(req.principal, pathId(req, 'id', 'Comment'));
  return { status: 204 };
});

import { getComment } from '../../lib/domain/comments.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => ({
  status: 200,
  body: await getComment(req.principal, pathId(req, 'id', 'Comment')),
}));

import { updateComment } from '../../lib/services/comments.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const id = pathId(req, 'id', 'Comment');
    const { comment } = await req.input();
    return { status: 200, body: await updateComment(req.principal, id, comment) };
  },
  { body: bodySchema(() => import('../../lib/schemas/comments.ts'), 'CommentUpdateBody') },
);

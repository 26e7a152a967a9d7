import { updateComment } from '../../lib/domain/comments.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { CommentUpdateBody } from '../../lib/schemas/comments.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const id = pathId(req, 'id', 'Comment');
    const { comment } = parseOrThrow(CommentUpdateBody, req.body);
    return { status: 200, body: await updateComment(req.principal, id, comment) };
  },
  { body: true },
);

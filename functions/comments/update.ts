import { updateComment } from '../../lib/domain/comments.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/comments.ts');

export const handler = routeHandler(
  async (req) => {
    const id = pathId(req, 'id', 'Comment');
    const { comment } = parseOrThrow((await schemas()).CommentUpdateBody, req.body);
    return { status: 200, body: await updateComment(req.principal, id, comment) };
  },
  { body: true },
);

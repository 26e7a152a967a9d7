import { createComment } from '../../lib/domain/comments.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/comments.ts');

export const handler = apiHandler(
  async (req) => {
    const ref = {
      projectId: pathId(req, 'project_id', 'Project'),
      // absent on the backlog's path
      sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
      issueId: pathId(req, 'issue_id', 'Issue'),
    };
    const { comment } = parseOrThrow((await schemas()).CommentCreateBody, req.body);
    return { status: 201, body: await createComment(req.principal, ref, comment) };
  },
  { body: true },
);

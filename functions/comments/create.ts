import { createComment } from '../../lib/services/comments.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

export const handler = idempotentHandler(
  async (req) => {
    const ref = {
      projectId: pathId(req, 'project_id', 'Project'),
      // absent on the backlog's path
      sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
      issueId: pathId(req, 'issue_id', 'Issue'),
    };
    const { comment } = await req.input();
    return { status: 201, body: await createComment(req.principal, ref, comment) };
  },
  { body: bodySchema(() => import('../../lib/schemas/comments.ts'), 'CommentCreateBody') },
);

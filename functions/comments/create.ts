import { createComment } from '../../lib/domain/comments.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { CommentCreateBody } from '../../lib/schemas/comments.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const ref = {
      projectId: pathId(req, 'project_id', 'Project'),
      // absent on the backlog's path
      sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
      issueId: pathId(req, 'issue_id', 'Issue'),
    };
    const { comment } = parseOrThrow(CommentCreateBody, req.body);
    return { status: 201, body: await createComment(req.principal, ref, comment) };
  },
  { body: true },
);

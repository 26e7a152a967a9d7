import { createIssue } from '../../lib/services/issues.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { withProjectStatuses } from '../../lib/http/project-statuses.ts';

/** Creates an issue at the end of the project backlog. */
export const handler = idempotentHandler(
  async (req) => {
    const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: null };
    const { issue } = await req.input();
    return { status: 201, body: await createIssue(req.principal, at, issue) };
  },
  { body: bodySchema(() => import('../../lib/schemas/issues.ts'), 'IssueCreateBody'), statuses: withProjectStatuses },
);

import { updateIssue } from '../../lib/services/issues.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';
import { withProjectStatuses } from '../../lib/http/project-statuses.ts';

/** PATCH and PUT of an issue of a sprint's issues; `sprint_id` moves it. */
export const handler = routeHandler(
  async (req) => {
    const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: pathId(req, 'sprint_id', 'Sprint') };
    const id = pathId(req, 'issue_id', 'Issue');
    const { issue } = await req.input();
    return { status: 200, body: await updateIssue(req.principal, at, id, issue) };
  },
  { body: bodySchema(() => import('../../lib/schemas/issues.ts'), 'IssueUpdateBody'), statuses: withProjectStatuses },
);

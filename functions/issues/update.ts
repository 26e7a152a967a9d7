import { updateIssue } from '../../lib/domain/issues.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/issues.ts');

/** PATCH and PUT of an issue of a sprint's issues; `sprint_id` moves it. */
export const handler = routeHandler(
  async (req) => {
    const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: pathId(req, 'sprint_id', 'Sprint') };
    const id = pathId(req, 'issue_id', 'Issue');
    const { issue } = parseOrThrow((await schemas()).IssueUpdateBody, req.body);
    return { status: 200, body: await updateIssue(req.principal, at, id, issue) };
  },
  { body: true },
);

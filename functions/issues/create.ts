import { createIssue } from '../../lib/domain/issues.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/issues.ts');

/** Creates an issue at the end of a sprint's issues. */
export const handler = apiHandler(
  async (req) => {
    const at = { projectId: pathId(req, 'project_id', 'Project'), sprintId: pathId(req, 'sprint_id', 'Sprint') };
    const { issue } = parseOrThrow((await schemas()).IssueCreateBody, req.body);
    return { status: 201, body: await createIssue(req.principal, at, issue) };
  },
  { body: true },
);

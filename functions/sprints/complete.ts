import { completeSprint } from '../../lib/domain/sprints.ts';
import { apiHandler, pathId } from '../../lib/http/handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/sprint-outcomes.ts');

/** `POST .../complete` and `POST .../completion`; the body (`carry_over`) is optional. */
export const handler = apiHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const sprintId = pathId(req, 'sprint_id', 'Sprint');
    const input = parseOrThrow((await schemas()).SprintCompleteBody, req.body, false);
    return { status: 200, body: await completeSprint(req.principal, projectId, sprintId, input) };
  },
  { body: true },
);

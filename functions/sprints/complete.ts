import { completeSprint } from '../../lib/services/sprints.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';

/** `POST .../complete` and `POST .../completion`; the body (`carry_over`) is optional. */
export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const sprintId = pathId(req, 'sprint_id', 'Sprint');
    return { status: 200, body: await completeSprint(req.principal, projectId, sprintId, await req.input()) };
  },
  {
    body: bodySchema(() => import('../../lib/schemas/sprint-outcomes.ts'), 'SprintCompleteBody', { wrapped: false }),
    conditional: true,
  },
);

import { activateSprint } from '../../lib/services/sprints.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { pathId } from '../../lib/http/stack.ts';

/** `POST .../activate` and `POST .../activation`. */
export const handler = idempotentHandler(
  async (req) => ({
    status: 200,
    body: await activateSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
  }),
  { conditional: true },
);

import { completeSprint } from '../../lib/domain/sprints.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { pathId } from '../../lib/http/stack.ts';

/** `POST .../complete` and `POST .../completion`. */
export const handler = idempotentHandler(async (req) => ({
  status: 200,
  body: await completeSprint(req.principal, pathId(req, 'project_id', 'Project'), pathId(req, 'sprint_id', 'Sprint')),
}));

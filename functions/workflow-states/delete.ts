import { deleteState } from '../../lib/services/states.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** The state goes at once, its issues showing `move_to`; the cascade writes it on them in the background. */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const stateId = pathId(req, 'state_id', 'State');
  const { move_to } = parseOrThrow((await import('../../lib/schemas/states.ts')).StateDeleteQuery, req.query, false);
  await deleteState(req.principal, projectId, stateId, move_to);
  return { status: 204 };
});

import { getState, listStates } from '../../lib/services/states.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * `GET …/states` (the workflow, in board order) and `GET …/states/{state_id}` (one state): one
 * function for both reads, because the stack is near CloudFormation's 500 resources with CORS on
 * (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  if (req.params.state_id !== undefined) {
    return { status: 200, body: await getState(req.principal, projectId, pathId(req, 'state_id', 'State')) };
  }
  return { status: 200, body: await listStates(req.principal, projectId) };
});

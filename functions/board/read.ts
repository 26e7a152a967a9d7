import { getBoard } from '../../lib/services/board.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/**
 * `GET …/sprints/{sprint_id}/board` and `GET …/backlog/board` (the backlog's): one function for both, because
 * the stack is near CloudFormation's 500 resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  const projectId = pathId(req, 'project_id', 'Project');
  const sprintId = req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint');
  const { per_column, fields } = parseOrThrow((await import('../../lib/schemas/states.ts')).BoardQuery, req.query, false);
  // A board filtered by custom fields: the search language loads only then.
  const values =
    fields === undefined
      ? undefined
      : (await import('../../lib/services/custom-field-filter.ts')).valuesFilter(fields, req.principal.accountId);
  return { status: 200, body: await getBoard(req.principal, projectId, sprintId, per_column, values) };
});

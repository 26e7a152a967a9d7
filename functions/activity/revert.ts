import { revertActivity } from '../../lib/services/revert.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** `POST /api/v1/activity/{activity_id}/revert`: undoes one change of an issue; `If-Match` is the ETag. */
export const handler = routeHandler(
  async (req) => ({ status: 200, body: await revertActivity(req.principal, req.params.activity_id ?? '') }),
  { conditional: true },
);

import { rotateSecret } from '../../lib/services/github.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** No Idempotency-Key: the answer carries the new secret (nor kept by a cache: no-store). */
export const handler = routeHandler(
  async (req) => ({ status: 200, body: await rotateSecret(req.principal, pathId(req, 'project_id', 'Project')) }),
  { secret: true },
);

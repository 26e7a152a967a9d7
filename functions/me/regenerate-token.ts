import { regenerateOwnToken } from '../../lib/services/accounts.ts';
import { routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => ({
    status: 201,
    body: { token: await regenerateOwnToken(req.principal) },
  }),
  // No Idempotency-Key (routeHandler, not idempotentHandler): the response carries the new token, which
  // must never be stored for a replay. Nor kept by a cache: no-store.
  { secret: true },
);

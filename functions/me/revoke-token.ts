import { revokeOwnToken } from '../../lib/services/accounts.ts';
import { routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await revokeOwnToken(req.principal);
  return { status: 204 };
});

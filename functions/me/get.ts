import { me } from '../../lib/services/accounts.ts';
import { routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({ status: 200, body: await me(req.principal) }));

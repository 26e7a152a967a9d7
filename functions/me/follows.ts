import { listFollowed } from '../../lib/services/notifications.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** The queries the caller follows, oldest first. */
export const handler = routeHandler(async (req) => ({ status: 200, body: await listFollowed(req.principal) }));

import { unfollowQuery } from '../../lib/services/notifications.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** The caller stops following a query. */
export const handler = routeHandler(async (req) => {
  await unfollowQuery(req.principal, pathId(req, 'subscription_id', 'Subscription'));
  return { status: 204 };
});

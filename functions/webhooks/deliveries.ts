import { listDeliveries } from '../../lib/domain/webhooks.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await listDeliveries(req.principal, pathId(req, 'webhook_id', 'Webhook')),
}));

import { deleteWebhook } from '../../lib/services/webhooks.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  await deleteWebhook(req.principal, pathId(req, 'webhook_id', 'Webhook'));
  return { status: 204 };
});

import { redeliver } from '../../lib/services/webhooks.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/** Not idempotent-stored: a second request while the first is pending is refused (422) instead. */
export const handler = routeHandler(async (req) => {
  const webhookId = pathId(req, 'webhook_id', 'Webhook');
  return { status: 200, body: await redeliver(req.principal, webhookId, req.params.delivery_id ?? '') };
});

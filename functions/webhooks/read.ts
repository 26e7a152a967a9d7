import { getWebhook, listDeliveries, listWebhooks } from '../../lib/services/webhooks.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * `GET /webhooks` (the endpoints), `GET /webhooks/{webhook_id}` (one) and `GET …/deliveries` (its
 * recent deliveries): one function for the three reads, because the stack is near CloudFormation's
 * 500 resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  if (req.params.webhook_id === undefined) {
    const pr = await pageRequest(req);
    const { page, items, total } = await listWebhooks(req.principal, pr);
    return pageResult(req, pr, page, items, total);
  }
  const webhookId = pathId(req, 'webhook_id', 'Webhook');
  if (req.event.resource.endsWith('/deliveries')) {
    return { status: 200, body: await listDeliveries(req.principal, webhookId) };
  }
  return { status: 200, body: await getWebhook(req.principal, webhookId) };
});

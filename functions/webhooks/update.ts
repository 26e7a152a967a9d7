import { updateWebhook } from '../../lib/services/webhooks.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const id = pathId(req, 'webhook_id', 'Webhook');
    const { webhook } = await req.input();
    return { status: 200, body: await updateWebhook(req.principal, id, webhook) };
  },
  { body: bodySchema(() => import('../../lib/schemas/webhooks.ts'), 'WebhookUpdateBody') },
);

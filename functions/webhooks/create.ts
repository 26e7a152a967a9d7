import { createWebhook } from '../../lib/services/webhook-secrets.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const { webhook } = await req.input();
    return { status: 201, body: await createWebhook(req.principal, webhook) };
  },
  // No Idempotency-Key (routeHandler, not idempotentHandler): the response carries the signing
  // secret, which must never be stored for a replay.
  { body: bodySchema(() => import('../../lib/schemas/webhooks.ts'), 'WebhookCreateBody'), secret: true },
);

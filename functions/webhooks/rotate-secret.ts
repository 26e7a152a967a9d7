import { rotateWebhookSecret } from '../../lib/services/webhook-secrets.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * No Idempotency-Key: the response carries the new secret, which must never be stored for a replay
 * (nor kept by a cache: no-store).
 */
export const handler = routeHandler(
  async (req) => ({
    status: 200,
    body: await rotateWebhookSecret(req.principal, pathId(req, 'webhook_id', 'Webhook')),
  }),
  { secret: true },
);

import { followQuery } from '../../lib/services/notifications.ts';
import { bodySchema } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

/** The caller follows a query (docs/notifications.md): an issue that matches it after a change notifies the caller. */
export const handler = idempotentHandler(
  async (req) => {
    const { subscription } = await req.input();
    return { status: 201, body: await followQuery(req.principal, subscription.query) };
  },
  { body: bodySchema(() => import('../../lib/schemas/notifications.ts'), 'SubscriptionCreateBody') },
);

import { markNotificationsRead } from '../../lib/services/notifications.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';

/** Marks the caller's notifications read, by id or all of them; marking one twice counts it once. */
export const handler = routeHandler(
  async (req) => ({ status: 200, body: await markNotificationsRead(req.principal, await req.input()) }),
  { body: bodySchema(() => import('../../lib/schemas/notifications.ts'), 'MarkReadBody') },
);

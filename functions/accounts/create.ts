import { createAccount } from '../../lib/services/accounts.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const { account } = await req.input();
    return { status: 201, body: await createAccount(req.principal, account) };
  },
  // No Idempotency-Key (routeHandler, not idempotentHandler): the response carries the new account's
  // token, which must never be stored for a replay.
  { body: bodySchema(() => import('../../lib/schemas/accounts.ts'), 'AccountCreateBody'), secret: true },
);

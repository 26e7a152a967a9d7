import { createAccount } from '../../lib/domain/accounts.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start (README: Bundles). */
const schemas = () => import('../../lib/schemas/accounts.ts');

export const handler = routeHandler(
  async (req) => {
    const { account } = parseOrThrow((await schemas()).AccountCreateBody, req.body);
    return { status: 201, body: await createAccount(req.principal, account) };
  },
  // No Idempotency-Key (routeHandler, not apiHandler): the response carries the new account's
  // token, which must never be stored for a replay.
  { body: true },
);

import { updateMe } from '../../lib/services/accounts.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';

/** `PATCH /me`: the caller's own account (its handle); answers as `GET /me`. */
export const handler = routeHandler(
  async (req) => {
    const { account } = await req.input();
    return { status: 200, body: await updateMe(req.principal, account) };
  },
  { body: bodySchema(() => import('../../lib/schemas/accounts.ts'), 'AccountUpdateBody') },
);

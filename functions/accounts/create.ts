import { createAccount } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';
import { AccountCreateBody } from '../../lib/schemas/accounts.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

export const handler = apiHandler(
  async (req) => {
    const { account } = parseOrThrow(AccountCreateBody, req.body);
    return { status: 201, body: await createAccount(req.principal, account) };
  },
  // The response carries the new account's token: it must never be stored for a replay.
  { body: true, idempotent: false },
);

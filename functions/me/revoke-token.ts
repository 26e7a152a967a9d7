import { revokeOwnToken } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => {
  await revokeOwnToken(req.principal);
  return { status: 204 };
});

import { revokeToken } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => {
  await revokeToken(req.principal.orgId, req.principal.accountId);
  return { status: 204 };
});

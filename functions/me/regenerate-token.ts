import { regenerateToken } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => ({
  status: 201,
  body: { token: await regenerateToken(req.principal.orgId, req.principal.accountId) },
}));

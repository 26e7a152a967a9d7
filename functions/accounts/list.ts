import { listAccounts } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = apiHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listAccounts(req.principal, pr);
  return pageResult(req, pr, page, items, total);
});

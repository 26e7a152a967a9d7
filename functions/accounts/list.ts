import { listAccounts } from '../../lib/services/accounts.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';

export const handler = routeHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listAccounts(req.principal, pr);
  return pageResult(req, pr, page, items, total);
});

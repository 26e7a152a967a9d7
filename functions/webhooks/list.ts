import { listWebhooks } from '../../lib/domain/webhooks.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listWebhooks(req.principal, pr);
  return pageResult(req, pr, page, items, total);
});

import { listSubIssues } from '../../lib/services/sub-issues.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** An issue's sub-issues by its key ("APL-42", any case), oldest first; 404 for a malformed or unknown key. */
export const handler = routeHandler(async (req) => {
  const key = req.params.issue_key ?? '';
  const pr = await pageRequest(req);
  const { page, items, total } = await listSubIssues(req.principal, key, pr);
  return pageResult(req, pr, page, items, total);
});

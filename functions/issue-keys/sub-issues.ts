import { NotFoundError } from '../../lib/domain/errors.ts';
import { listSubIssues } from '../../lib/domain/sub-issues.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';

const issueKey = /^[A-Za-z0-9]{2,4}-[1-9]\d{0,15}$/;

/** An issue's sub-issues by its key ("APL-42", any case), oldest first; 404 for a malformed or unknown key. */
export const handler = routeHandler(async (req) => {
  const key = req.params.issue_key ?? '';
  if (!issueKey.test(key)) throw new NotFoundError(`Issue ${key}`);
  const pr = await pageRequest(req);
  const { page, items, total } = await listSubIssues(req.principal, key, pr);
  return pageResult(req, pr, page, items, total);
});

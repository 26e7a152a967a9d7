import { listIssueLinks } from '../../lib/services/github-links.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { issueKeyParam, routeHandler } from '../../lib/http/stack.ts';

/** An issue's links to GitHub by its key ("APL-42", any case), the latest changed first; 404 for an unknown key. */
export const handler = routeHandler(async (req) => {
  const pr = await pageRequest(req);
  const { page, items, total } = await listIssueLinks(req.principal, issueKeyParam(req), pr);
  return pageResult(req, pr, page, items, total);
});

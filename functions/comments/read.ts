import { getComment, listComments } from '../../lib/services/comments.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { pathId, routeHandler } from '../../lib/http/stack.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { issueTarget } from '../../lib/http/issue-target.ts';

/**
 * `GET /comments/{id}` (one comment, wherever it lives) and an issue's comments (under its sprint's
 * path, the backlog's or its key's): one function for both reads, because the stack is near CloudFormation's
 * 500 resources with CORS on (a function costs four; docs/deploying.md).
 */
export const handler = routeHandler(async (req) => {
  if (req.params.id !== undefined) {
    return { status: 200, body: await getComment(req.principal, pathId(req, 'id', 'Comment')) };
  }
  const target = issueTarget(req);
  const pr = await pageRequest(req);
  const { page, items, total } = await onIssue(req.principal, target, (p) =>
    listComments(req.principal, { ...p.at, issueId: p.issueId }, pr),
  );
  return pageResult(req, pr, page, items, total);
});

import { getIssue } from '../../lib/services/issues.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** An issue by its key ("APL-42", any case), wherever it lives, as its list's path answers it; 404 for a malformed or unknown key. */
export const handler = routeHandler(async (req) => {
  const target = { key: req.params.issue_key ?? '' };
  return { status: 200, body: await onIssue(req.principal, target, (p) => getIssue(req.principal, p.at, p.issueId, p.position)) };
});

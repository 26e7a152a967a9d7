import { deleteIssue } from '../../lib/services/issues.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** Deletes an issue by its key into the trash, wherever it lives, as its list's path does. */
export const handler = routeHandler(async (req) => {
  const target = { key: req.params.issue_key ?? '' };
  await onIssue(req.principal, target, (p) => deleteIssue(req.principal, p.at, p.issueId));
  return { status: 204 };
});

import { watchIssue } from '../../lib/services/notifications.ts';
import { issueKeyParam, routeHandler } from '../../lib/http/stack.ts';

/** The caller no longer watches the issue (docs/notifications.md); answers who still does. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await watchIssue(req.principal, issueKeyParam(req), false),
}));

import { watchIssue } from '../../lib/services/notifications.ts';
import { issueKeyParam, routeHandler } from '../../lib/http/stack.ts';

/** The caller watches the issue from now on (docs/notifications.md); answers who watches it. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await watchIssue(req.principal, issueKeyParam(req), true),
}));

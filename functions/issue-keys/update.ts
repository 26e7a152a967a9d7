import { updateIssue } from '../../lib/services/issues.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';
import { withProjectStatuses } from '../../lib/http/project-statuses.ts';

/** PATCH and PUT of an issue by its key, wherever it lives; `sprint_id` and `position` move it, as on its list's path. */
export const handler = routeHandler(
  async (req) => {
    const { issue } = await req.input();
    const target = { key: req.params.issue_key ?? '' };
    return { status: 200, body: await onIssue(req.principal, target, (p) => updateIssue(req.principal, p.at, p.issueId, issue)) };
  },
  { body: bodySchema(() => import('../../lib/schemas/issues.ts'), 'IssueUpdateBody'), statuses: withProjectStatuses },
);

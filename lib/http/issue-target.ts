import type { IssueTarget } from '../services/issue-keys.ts';
import { pathId, type ApiRequest } from './stack.ts';

/**
 * The issue a route names: by its key (`/issues/{issue_key}`), or by the ids of its nested path (a
 * sprint's, or the backlog's, which has no `sprint_id`). Route functions serve both spellings.
 */
export function issueTarget(req: ApiRequest<unknown>): IssueTarget {
  if (req.params.issue_key !== undefined) return { key: req.params.issue_key };
  return {
    at: {
      projectId: pathId(req, 'project_id', 'Project'),
      sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint'),
    },
    issueId: pathId(req, 'issue_id', 'Issue'),
  };
}

import type { IssueListFilters } from '../schemas/issues.ts';
import type { IssueState } from './derivations.ts';

/**
 * The filters on priority, type and due date (AND), over what the derivations read of an issue:
 * the issue lists and the assignee index (`GET /me/issues`) match alike. Both due bounds are
 * inclusive days; an issue without a due date matches neither.
 */
export function classificationFilter(
  filters: Pick<IssueListFilters, 'priority' | 'type' | 'dueBefore' | 'dueAfter'>,
): (issue: Pick<IssueState, 'priority' | 'type' | 'dueDate'>) => boolean {
  const { priority, type, dueBefore, dueAfter } = filters;
  return (issue) =>
    (priority === undefined || priority.includes(issue.priority)) &&
    (type === undefined || type.includes(issue.type)) &&
    (dueBefore === undefined || (issue.dueDate !== null && issue.dueDate <= dueBefore)) &&
    (dueAfter === undefined || (issue.dueDate !== null && issue.dueDate >= dueAfter));
}

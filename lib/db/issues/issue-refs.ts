import { keys } from '../core/keys.ts';
import type { IssueItem } from './issues.ts';
import { getItem } from '../core/transactions.ts';

/** The stored issue `issueId` of a project, if there is one: one consistent GetItem. */
export function readIssueItem<T = IssueItem>(orgId: number, projectId: number, issueId: number): Promise<T | undefined> {
  return getItem<T>(keys.issue(orgId, projectId, issueId));
}

/**
 * What an answered issue was written as, for `withVersion` (lib/db/core/versions.ts): the key of its
 * item and the version it has now, so that its ETag is usable with `If-Match` at once.
 */
export const writtenIssue = (orgId: number, projectId: number, issueId: number, version: number) => ({
  ...keys.issue(orgId, projectId, issueId),
  version,
});

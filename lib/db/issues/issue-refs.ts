import { keys } from '../core/keys.ts';
import type { IssueItem } from './issues.ts';
import { isConditionFailed } from '../core/errors.ts';
import { batchGet, getItem, Refused } from '../core/transactions.ts';
import { MAX_WATCHERS } from '../../vocabulary/notifications.ts';
import { issueItem } from './issue-item.ts';

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

/** What a notification shows of an issue, and who watches it (lib/feed/notify.ts). */
export interface IssueHead {
  issueKey: string;
  title: string;
  watcherIds: number[];
}

/** The heads of issues (undefined where one is gone), in one BatchGetItem. */
export async function readIssueHeads(
  orgId: number,
  refs: { projectId: number; issueId: number }[],
): Promise<(IssueHead | undefined)[]> {
  const found = await batchGet(refs.map((r) => keys.issue(orgId, r.projectId, r.issueId)));
  return found.map((item) =>
    item
      ? {
          issueKey: issueItem.field(item, 'number'),
          title: String(issueItem.field(item, 'title')),
          watcherIds: issueItem.field(item, 'watcherIds'),
        }
      : undefined,
  );
}

/**
 * Adds `accountId` to an issue's watchers, or takes it off, in one UpdateItem: refused `issue` when
 * the issue is not there, `watchers_limit` when MAX_WATCHERS others watch it already. Answers its
 * watchers after the change. The issue's version stays: watching is not an edit of the issue.
 */
export async function setWatching(
  orgId: number,
  projectId: number,
  issueId: number,
  accountId: number,
  watching: boolean,
): Promise<number[]> {
  const key = keys.issue(orgId, projectId, issueId);
  const me = new Set([accountId]);
  const change = watching ? { add: { watcherIds: me } } : { delete: { watcherIds: me } };
  const room = {
    ConditionExpression: '(attribute_not_exists(#room) OR size(#room) < :max OR contains(#room, :me))',
    ExpressionAttributeNames: { '#room': issueItem.stored('watcherIds') },
    ExpressionAttributeValues: { ':max': MAX_WATCHERS, ':me': accountId },
  };
  try {
    const out = await issueItem.updateNow(key, { ...change, if: { exists: true } }, watching ? room : undefined, 'ALL_NEW');
    return issueItem.field(out.Attributes ?? {}, 'watcherIds');
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    throw new Refused((await getItem(key, 'PK')) ? 'watchers_limit' : 'issue');
  }
}

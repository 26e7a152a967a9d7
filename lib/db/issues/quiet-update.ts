import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { keys, parseProjectPk, type Key } from '../core/keys.ts';
import { isRefused, Refused, transact } from '../core/transactions.ts';
import type { UpdateExpressions } from '../core/item.ts';

/**
 * A cascade's change of a value an issue holds (a purged label's id, a deleted field's value):
 * the issue and its search record updated alike in one transaction, on condition that the issue is
 * still there. Nothing else of the issue changes: no revision, no `updated_at`. Running it twice is
 * harmless; an issue gone meanwhile needs nothing.
 */
export async function quietIssueUpdate(key: Key, update: UpdateExpressions): Promise<void> {
  const issue = { TableName: tableName(), Key: key, ...update };
  // Its search record too (docs/search.md), in the same transaction, while it is there.
  const project = parseProjectPk(key.PK);
  const issueId = Number(/^ISSUE#(\d+)$/.exec(key.SK)?.[1]);
  const record = project && issueId ? keys.searchIssue(project.orgId, project.projectId, issueId) : undefined;
  try {
    if (!record) {
      await db.send(new UpdateCommand(issue));
      return;
    }
    await transact([
      { item: { Update: issue }, reason: 'gone' },
      { item: { Update: { ...issue, Key: record } }, reason: 'unindexed' },
    ]).catch(async (err: unknown) => {
      // A record not written yet (an issue from before the search index): the issue alone.
      if (isRefused(err, 'unindexed')) await db.send(new UpdateCommand(issue));
      else throw err;
    });
  } catch (err) {
    if (!isConditionFailed(err) && !(err instanceof Refused)) throw err; // the issue is gone: nothing to change
  }
}

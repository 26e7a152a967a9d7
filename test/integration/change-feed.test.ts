import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { createProject, deleteProject } from '../../lib/services/projects.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { feedBatch } from '../../lib/feed/consume.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { commentItem, issueItem, putAll } from '../support/seed.ts';
import { removeRecord } from '../support/stream-records.ts';

/**
 * The change feed consumer's work on a cascade's removals, its handler's core (lib/feed/consume.ts)
 * called directly with Lambda-shaped records: a comment removed with its issue or project is no
 * one's change to record, and finding that out costs one refused write per batch, not one each.
 */

/** A project whose backlog issue 1 has `comments` comments (written only when a test says so). */
async function projectWithComments(comments: number, issues = 1) {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const project = await createProject(caller, { name: 'Feed', prefix: randomPrefix() });
  const issue = issueItem(org.orgId, project.id, null, 1, 1, comments);
  const items = Array.from({ length: comments }, (_, i) =>
    commentItem(org.orgId, project.id, null, 1 + (i % issues), i + 1, org.admin.id),
  );
  return { caller, project, issue, items };
}

describe('the change feed on a cascade’s removals', () => {
  it('tries one write for the comments of a removed issue, and records none', async () => {
    const { items } = await projectWithComments(40);
    // The issue itself is gone (the cascade removes its comments after it).
    const records = items.map((item) => removeRecord(item));
    const { result, log } = await withDbCallLog(() => feedBatch(records));
    expect(result).toMatchObject({ events: 40, activities: 0, errors: [] });
    // The batch's delete markers in one BatchGet, and one refused write: the rest of the batch is
    // then known to be under a removed issue.
    expect(log.calls).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('tries one write for the comments of the issues of a removed project, and records none', async () => {
    const { caller, project, issue, items } = await projectWithComments(40, 20);
    await putAll([issue]);
    await deleteProject(caller, project.id);
    const records = items.map((item) => removeRecord(item));
    const { result, log } = await withDbCallLog(() => feedBatch(records));
    expect(result).toMatchObject({ events: 40, activities: 0, errors: [] });
    expect(log.calls).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('records the removal of each comment of an issue that is still there, in as few transactions as fit', async () => {
    const { issue, items } = await projectWithComments(150);
    await putAll([issue]);
    const records = items.map((item) => removeRecord(item));
    const { result, log } = await withDbCallLog(() => feedBatch(records));
    expect(result).toMatchObject({ events: 150, activities: 150, errors: [] });
    // The delete markers in two BatchGets (100 keys each at most); then the project's check, the
    // issue's count and 98 entries in one transaction, the other 52 in a second.
    expect(log.calls).toEqual([
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
      'TransactWriteItemsCommand',
    ]);
    const stored = await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(issue.org_id, issue.project_id, 1) }));
    expect(stored.Item?.activity_count).toBe(150);
    // A replay of the batch writes nothing more.
    const again = await feedBatch(records);
    expect(again).toMatchObject({ activities: 0, errors: [] });
    const after = await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(issue.org_id, issue.project_id, 1) }));
    expect(after.Item?.activity_count).toBe(150);
  });
});

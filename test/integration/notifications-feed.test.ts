import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { feedBatch } from '../../lib/feed/consume.ts';
import type { ChangeEvent } from '../../lib/feed/events.ts';
import { notifyGroup } from '../../lib/feed/notify.ts';
import { getAccountWithOrganisation } from '../../lib/db/organisation/accounts.ts';
import { inboxPage } from '../../lib/db/organisation/inbox.ts';
import { setIssueNotificationsHidden } from '../../lib/jobs/notification-trips.ts';
import { newOrganisation } from '../support/api.ts';
import { removeRecord } from '../support/stream-records.ts';
import { issueItem, putAll } from '../support/seed.ts';

/**
 * The change feed's notifications called directly (lib/feed/notify.ts): a stream record worked
 * again writes nothing twice, an issue's trip to the trash moves each notification and its count
 * once however often it is worked, and an expired unread notification gives its place in the count
 * back once.
 */

const unread = async (orgId: number, accountId: number) => (await getAccountWithOrganisation(orgId, accountId)).unread;
const listed = async (orgId: number, accountId: number) =>
  (await inboxPage(orgId, accountId, { page: 1, perPage: 100 }, {})).items;

function created(orgId: number, actorId: number, assignee: number, sequence: string, issueId = 1): ChangeEvent {
  return {
    type: 'issue.created',
    sequence,
    recordId: `r${sequence}`,
    orgId,
    projectId: 5,
    issueId,
    at: new Date().toISOString(),
    actorId,
    resource: {
      issue_number: `FEED-${issueId}`,
      title: 'Replayed',
      assignee_id: assignee,
      description: null,
      watchers: { account_ids: [] },
    },
    changes: [],
  };
}

/** Issues 1 and 2 of project 5 (a notification is written only about an issue that is there). */
const withIssues = (orgId: number) => putAll([issueItem(orgId, 5, null, 1, 1), issueItem(orgId, 5, null, 2, 2)]);

describe('notifications from the change feed', () => {
  it('writes one notification per recipient and change, however often its record is worked', async () => {
    const { orgId, admin, member } = await newOrganisation();
    await withIssues(orgId);
    const event = created(orgId, admin.id, member.id, '1000');
    const { log } = await withDbCallLog(() => notifyGroup([{ index: 0, event }]));
    // The event reads nothing (its issue is its resource, no handle is mentioned): one transaction.
    expect(log.calls).toEqual(['TransactWriteItemsCommand']);
    await notifyGroup([{ index: 0, event }]);
    await notifyGroup([
      { index: 0, event },
      { index: 1, event: created(orgId, admin.id, member.id, '1001', 2) },
    ]);
    expect((await listed(orgId, member.id)).map((n) => n.sequence)).toEqual(['1001', '1000']);
    expect(await unread(orgId, member.id)).toBe(2);
    expect(await listed(orgId, admin.id)).toEqual([]);
  });

  it('hides and shows an issue’s notifications once each, however often worked', async () => {
    const { orgId, admin, member } = await newOrganisation();
    await withIssues(orgId);
    await notifyGroup([{ index: 0, event: created(orgId, admin.id, member.id, '2000') }]);
    const issue = { projectId: 5, issueId: 1 };
    for (let i = 0; i < 2; i++) await setIssueNotificationsHidden(orgId, issue, [member.id], true);
    expect(await listed(orgId, member.id)).toEqual([]);
    expect(await unread(orgId, member.id)).toBe(0);
    for (let i = 0; i < 2; i++) await setIssueNotificationsHidden(orgId, issue, [member.id], false);
    expect(await listed(orgId, member.id)).toHaveLength(1);
    expect(await unread(orgId, member.id)).toBe(1);
  });

  it('gives an expired unread notification’s place in the count back once, and a read one’s never', async () => {
    const { orgId, admin, member } = await newOrganisation();
    await withIssues(orgId);
    await notifyGroup([{ index: 0, event: created(orgId, admin.id, member.id, '3000') }]);
    const stored = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :note)',
        ExpressionAttributeValues: { ':pk': keys.inbox(orgId, member.id).PK, ':note': 'NOTE#' },
      }),
    );
    const record = removeRecord(stored.Items![0]!);
    for (let i = 0; i < 2; i++) {
      const result = await feedBatch([record]);
      expect(result).toMatchObject({ events: 1, errors: [] });
    }
    expect(await unread(orgId, member.id)).toBe(0);
  });
});

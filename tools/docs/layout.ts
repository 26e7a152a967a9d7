import { attachmentExpiredItem, attachmentItem, pendingUploadsItem } from '../../lib/db/attachments/attachments.ts';
import { assignedEntryItem, issueItem, searchRecordItem } from '../../lib/db/issues/issue-item.ts';
import { stateItem } from '../../lib/db/projects/workflow.ts';
import { trashItem } from '../../lib/db/core/trash.ts';
import { commentItem } from '../../lib/db/comments/comments.ts';
import { prefixGuardItem, projectItem } from '../../lib/db/projects/projects.ts';
import { sprintItem } from '../../lib/db/projects/sprints.ts';
import { importFilePartItem, importJobItem, importReportPartItem } from '../../lib/db/imports/import-jobs.ts';
import { importedCommentItem, importedIssueItem, importNumbersItem } from '../../lib/db/imports/imports.ts';
import { deliveryItem, webhookItem } from '../../lib/db/webhooks/webhooks.ts';
import { githubDeliveryItem, githubLinkItem, githubRepoItem } from '../../lib/db/github/github.ts';
import type { Attribute, ItemKind, Placement } from '../../lib/db/core/item.ts';
import { tokenItem } from '../../lib/db/organisation/tokens.ts';
import { accountItem, emailGuardItem, handleGuardItem } from '../../lib/db/organisation/accounts.ts';
import { organisationItem } from '../../lib/db/organisation/organisation.ts';
import { expiredNotificationItem, inboxItem, notificationItem, notifiedItem } from '../../lib/db/organisation/inbox.ts';
import { followItem } from '../../lib/db/organisation/follows.ts';
import {
  oauthAccessTokenItem,
  oauthClientItem,
  oauthCodeItem,
  oauthGrantItem,
  oauthRefreshItem,
  oauthRegistrationsItem,
} from '../../lib/db/organisation/oauth.ts';
import { organisationSequenceItem, sequencesItem } from '../../lib/db/core/sequences.ts';
import { issueKeyItem } from '../../lib/db/issues/issue-lookup.ts';
import { subIssueItem } from '../../lib/db/issues/sub-issues.ts';
import { velocityItem } from '../../lib/db/projects/velocity.ts';
import { labelItem, labelNameItem } from '../../lib/db/issues/labels.ts';
import { commentPointerItem } from '../../lib/db/comments/comment-pointers.ts';
import { activityTextItem, issueActivityItem, sprintActivityItem } from '../../lib/db/issues/activity.ts';
import { inFlightLaneItem } from '../../lib/db/webhooks/delivery-lanes.ts';
import { deletionItem } from '../../lib/db/core/deletions.ts';
import { cascadeItem } from '../../lib/db/cascades/cascade-records.ts';
import { migrationLeaseItem, migrationRecordItem } from '../../lib/db/core/migrations.ts';
import { idempotencyPartItem, idempotencyRecordItem } from '../../lib/db/organisation/idempotency.ts';

/**
 * Every kind of item the one table holds, where it lives and what it is, in the order the layout
 * table of docs/data-model.md shows them (generated from this list: `npm run docs:data-model`;
 * test/unit/data-model-docs.test.ts fails when the page differs). Each is a kind declared with its
 * attributes (lib/db/core/item.ts), which brings its own placement; the key builders are lib/db/core/keys.ts.
 */
export interface LayoutRow extends Placement {
  about: string;
  /** Its `type` attribute, for a kind whose items carry one (what stream filters match). */
  type?: string;
  /** Its attributes, as its declaration names and stores them. */
  attributes: Record<string, { stored: string }>;
}

/** The row of a kind declared with its attributes (lib/db/core/item.ts). */
const declared = (
  kind: Pick<ItemKind<Record<string, Attribute<unknown>>>, 'type' | 'key' | 'about' | 'attributes'>,
): LayoutRow => ({
  ...kind.key,
  about: kind.about,
  ...(kind.type ? { type: kind.type } : {}),
  attributes: kind.attributes,
});

export const layout: LayoutRow[] = [
  declared(organisationItem),
  declared(sequencesItem),
  declared(accountItem),
  declared(emailGuardItem),
  declared(handleGuardItem),
  declared(projectItem),
  declared(prefixGuardItem),
  declared(issueKeyItem),
  declared(subIssueItem),
  declared(assignedEntryItem),
  declared(notificationItem),
  declared(inboxItem),
  declared(expiredNotificationItem),
  declared(notifiedItem),
  declared(followItem),
  declared(searchRecordItem),
  declared(sprintItem),
  declared(velocityItem),
  declared(issueItem),
  declared(commentItem),
  declared(githubLinkItem),
  declared(attachmentItem),
  declared(issueActivityItem),
  declared(activityTextItem),
  declared(sprintActivityItem),
  declared(labelItem),
  declared(labelNameItem),
  declared(stateItem),
  declared(commentPointerItem),
  declared(attachmentExpiredItem),
  declared(pendingUploadsItem),
  declared(webhookItem),
  declared(trashItem),
  declared(deliveryItem),
  declared(inFlightLaneItem),
  declared(importedIssueItem),
  declared(importedCommentItem),
  declared(importNumbersItem),
  declared(importJobItem),
  declared(importReportPartItem),
  declared(importFilePartItem),
  declared(deletionItem),
  declared(tokenItem),
  declared(oauthAccessTokenItem),
  declared(oauthClientItem),
  declared(oauthRegistrationsItem),
  declared(oauthCodeItem),
  declared(oauthGrantItem),
  declared(oauthRefreshItem),
  declared(idempotencyRecordItem),
  declared(idempotencyPartItem),
  declared(organisationSequenceItem),
  declared(cascadeItem),
  declared(migrationRecordItem),
  declared(migrationLeaseItem),
  declared(githubRepoItem),
  declared(githubDeliveryItem),
];

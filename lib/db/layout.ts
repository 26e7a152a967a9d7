import { attachmentExpiredItem, attachmentItem, pendingUploadsItem } from './attachments.ts';
import { assignedEntryItem, issueItem, searchRecordItem } from './issue-item.ts';
import { stateItem } from './workflow.ts';
import { trashItem } from './trash.ts';
import { commentItem } from './comments.ts';
import { prefixGuardItem, projectItem } from './projects.ts';
import { sprintItem } from './sprints.ts';
import { importFilePartItem, importJobItem, importReportPartItem } from './import-jobs.ts';
import { importedCommentItem, importedIssueItem, importNumbersItem } from './imports.ts';
import { deliveryItem, webhookItem } from './webhooks.ts';
import type { Attribute, ItemKind, Placement } from './item.ts';
import { tokenItem } from './tokens.ts';
import { accountItem, emailGuardItem } from './accounts.ts';
import { organisationItem } from './organisation.ts';
import {
  oauthAccessTokenItem,
  oauthClientItem,
  oauthCodeItem,
  oauthGrantItem,
  oauthRefreshItem,
  oauthRegistrationsItem,
} from './oauth.ts';
import { organisationSequenceItem, sequencesItem } from './sequences.ts';
import { issueKeyItem } from './issue-lookup.ts';
import { subIssueItem } from './sub-issues.ts';
import { velocityItem } from './velocity.ts';
import { labelItem, labelNameItem } from './labels.ts';
import { commentPointerItem } from './comment-pointers.ts';
import { activityTextItem, issueActivityItem, sprintActivityItem } from './activity.ts';
import { inFlightLaneItem } from './delivery-lanes.ts';
import { deletionItem } from './deletions.ts';
import { cascadeItem } from './cascade-work.ts';
import { migrationLeaseItem, migrationRecordItem } from './migrations.ts';
import { idempotencyPartItem, idempotencyRecordItem } from './idempotency.ts';

/**
 * Every kind of item the one table holds, where it lives and what it is, in the order the layout
 * table of docs/data-model.md shows them (generated from this list: `npm run docs:data-model`;
 * test/unit/data-model-docs.test.ts fails when the page differs). Each is a kind declared with its
 * attributes (lib/db/item.ts), which brings its own placement; the key builders are lib/db/keys.ts.
 */
export interface LayoutRow extends Placement {
  about: string;
  /** Its `type` attribute, for a kind whose items carry one (what stream filters match). */
  type?: string;
  /** Its attributes, as its declaration names and stores them. */
  attributes: Record<string, { stored: string }>;
}

/** The row of a kind declared with its attributes (lib/db/item.ts). */
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
  declared(projectItem),
  declared(prefixGuardItem),
  declared(issueKeyItem),
  declared(subIssueItem),
  declared(assignedEntryItem),
  declared(searchRecordItem),
  declared(sprintItem),
  declared(velocityItem),
  declared(issueItem),
  declared(commentItem),
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
];

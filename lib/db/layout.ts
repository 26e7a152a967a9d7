import { attachmentItem } from './attachments.ts';
import { assignedEntryItem, issueItem, searchRecordItem } from './issue-item.ts';
import { stateItem } from './workflow.ts';
import { trashItem } from './trash.ts';
import { commentItem } from './comments.ts';
import { projectItem } from './projects.ts';
import { sprintItem } from './sprints.ts';
import { importFilePartItem, importJobItem, importReportPartItem } from './import-jobs.ts';
import { importedCommentItem, importedIssueItem, importNumbersItem } from './imports.ts';
import { deliveryItem, webhookItem } from './webhooks.ts';
import type { Attribute, ItemKind, Placement } from './item.ts';
import { tokenItem } from './tokens.ts';
import { accountItem } from './accounts.ts';
import { organisationItem } from './organisation.ts';
import { oauthAccessTokenItem, oauthClientItem, oauthCodeItem, oauthGrantItem, oauthRefreshItem } from './oauth.ts';
import { velocityItem } from './velocity.ts';
import { inFlightLaneItem } from './delivery-lanes.ts';
import { deletionItem } from './deletions.ts';
import { cascadeItem } from './cascade-work.ts';
import { migrationLeaseItem, migrationRecordItem } from './migrations.ts';
import { idempotencyPartItem, idempotencyRecordItem } from './idempotency.ts';

/**
 * Every kind of item the one table holds, where it lives and what it is, in the order the layout
 * table of docs/data-model.md shows them (generated from this list: `npm run docs:data-model`;
 * test/unit/data-model-docs.test.ts fails when the page differs). A kind declared with its
 * attributes (lib/db/item.ts) brings its own placement; the key builders are lib/db/keys.ts.
 */
export interface LayoutRow extends Placement {
  about: string;
  /** Its attributes, for a kind declared with them. */
  attributes?: Record<string, { stored: string }>;
}

const row = (key: Placement, about: string): LayoutRow => ({ ...key, about });
/** The row of a kind declared with its attributes (lib/db/item.ts). */
const declared = (kind: Pick<ItemKind<Record<string, Attribute<unknown>>>, 'key' | 'about' | 'attributes'>): LayoutRow => ({
  ...kind.key,
  about: kind.about,
  attributes: kind.attributes,
});

export const layout: LayoutRow[] = [
  declared(organisationItem),
  row({ PK: 'ORG#o', SK: 'SEQ' }, 'per-organisation id sequences'),
  declared(accountItem),
  row({ PK: 'ORG#o', SK: 'EMAIL#e' }, 'e-mail uniqueness guard'),
  declared(projectItem),
  row({ PK: 'ORG#o', SK: 'PREFIX#X' }, 'project prefix uniqueness guard'),
  row({ PK: 'ORG#o', SK: 'ISSUEKEY#X-n' }, 'issue number → project and issue id'),
  row({ PK: 'ORG#o', SK: 'ISSUEKEY#X-n#SUB#i' }, 'child i of issue X-n (its sub-issues list)'),
  { ...assignedEntryItem.key, about: assignedEntryItem.about, attributes: assignedEntryItem.attributes },
  { ...searchRecordItem.key, about: searchRecordItem.about, attributes: searchRecordItem.attributes },
  declared(sprintItem),
  declared(velocityItem),
  { ...issueItem.key, about: issueItem.about, attributes: issueItem.attributes },
  declared(commentItem),
  { ...attachmentItem.key, about: attachmentItem.about, attributes: attachmentItem.attributes },
  row({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#A#seq', LSK: 'IA#i#seq' }, 'issue activity (change feed)'),
  row({ PK: 'ORG#o#P#p', SK: 'ISSUE#i#A#seq#TEXT' }, "the description an issue's entry replaced (for its revert)"),
  row({ PK: 'ORG#o#P#p', SK: 'SPRINT#s#A#seq', LSK: 'SA#s#seq' }, 'sprint activity (change feed)'),
  row({ PK: 'ORG#o#P#p', SK: 'LABEL#l', LSK: 'LABEL#l' }, "label of the project's catalogue"),
  row({ PK: 'ORG#o#P#p', SK: 'LABELNAME#n' }, 'label name uniqueness guard (case-folded name)'),
  { ...stateItem.key, about: stateItem.about, attributes: stateItem.attributes },
  row({ PK: 'ORG#o', SK: 'COMMENT#c' }, 'where comment c lives (its project, issue, sprint)'),
  row({ PK: 'ORG#o', SK: 'ATTACHMENTEXPIRED#f' }, "expired attachment f's bytes given back, once (TTL `expires_at`)"),
  declared(webhookItem),
  { ...trashItem.key, about: trashItem.about, attributes: trashItem.attributes },
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
  row({ PK: 'OAUTHREG#address', SK: 'HOUR#h' }, 'OAuth client registrations from an address in an hour (TTL)'),
  declared(oauthCodeItem),
  declared(oauthGrantItem),
  declared(oauthRefreshItem),
  declared(idempotencyRecordItem),
  declared(idempotencyPartItem),
  row({ PK: 'GLOBAL', SK: 'SEQ' }, 'organisation id sequence'),
  declared(cascadeItem),
  declared(migrationRecordItem),
  declared(migrationLeaseItem),
];

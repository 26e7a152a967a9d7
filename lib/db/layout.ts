import { attachmentExpiredItem, attachmentItem } from './attachments.ts';
import { assignedEntryItem, issueItem, searchRecordItem } from './issue-item.ts';
import { stateItem } from './workflow.ts';
import { trashItem } from './trash.ts';
import { commentItem } from './comments.ts';
import { prefixGuardItem, projectItem } from './projects.ts';
import { sprintItem } from './sprints.ts';
import { importJobItem } from './import-jobs.ts';
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
  declared(sequencesItem),
  declared(accountItem),
  declared(emailGuardItem),
  declared(projectItem),
  declared(prefixGuardItem),
  declared(issueKeyItem),
  declared(subIssueItem),
  { ...assignedEntryItem.key, about: assignedEntryItem.about, attributes: assignedEntryItem.attributes },
  { ...searchRecordItem.key, about: searchRecordItem.about, attributes: searchRecordItem.attributes },
  declared(sprintItem),
  declared(velocityItem),
  { ...issueItem.key, about: issueItem.about, attributes: issueItem.attributes },
  declared(commentItem),
  { ...attachmentItem.key, about: attachmentItem.about, attributes: attachmentItem.attributes },
  declared(issueActivityItem),
  declared(activityTextItem),
  declared(sprintActivityItem),
  declared(labelItem),
  declared(labelNameItem),
  { ...stateItem.key, about: stateItem.about, attributes: stateItem.attributes },
  declared(commentPointerItem),
  declared(attachmentExpiredItem),
  declared(webhookItem),
  { ...trashItem.key, about: trashItem.about, attributes: trashItem.attributes },
  declared(deliveryItem),
  row({ PK: 'ORG#o#INFLIGHT', SK: 'LANE#l' }, 'webhook attempts in flight in a lane (the caps)'),
  row({ PK: 'ORG#o#P#p', SK: 'IMPORTED#src#key' }, 'the issue an import made from a source key'),
  row({ PK: 'ORG#o#P#p', SK: 'IMPORTCOMMENT#src#k' }, 'the comment an import made from a source key'),
  row({ PK: 'ORG#o#P#p', SK: 'IMPORTNUMBERS#src' }, "issue numbers reserved for a source's keys"),
  declared(importJobItem),
  row({ PK: 'ORG#o', SK: 'IMPORTJOB#j#REPORT#n' }, "part n of an import job's report maps (TTL)"),
  row({ PK: 'ORG#o#IMPORT#j', SK: 'PART#n' }, "part n of an import job's file (TTL `expires_at`)"),
  row({ PK: '<PK of x>#DEL', SK: '<SK of x>' }, 'who deleted x, when (TTL `expires_at`)'),
  declared(tokenItem),
  declared(oauthAccessTokenItem),
  declared(oauthClientItem),
  declared(oauthRegistrationsItem),
  declared(oauthCodeItem),
  declared(oauthGrantItem),
  declared(oauthRefreshItem),
  row({ PK: 'IDEMPOTENCY#k', SK: 'IDEMPOTENCY' }, 'Idempotency-Key record (TTL `expires_at`)'),
  row({ PK: 'IDEMPOTENCY#k', SK: 'PART#n' }, 'part n of a large stored response (TTL)'),
  declared(organisationSequenceItem),
  row({ PK: 'CASCADE', SK: 'kind#o#p#id' }, 'a cascade (project, sprint, issue) still to finish'),
  row({ PK: 'MIGRATION', SK: 'MIGRATION#name' }, "a data migration's record (status, cursor, counts)"),
  row({ PK: 'MIGRATION', SK: 'LEASE' }, 'who runs the data migrations now, until when'),
];

import { config } from '../../config.ts';
import type { Organisation } from '../../schemas/accounts.ts';
import { attribute, itemKind, type Fields, type Stored } from '../core/item.ts';
import { keys } from '../core/keys.ts';
import { getItem, updateResource } from '../core/transactions.ts';
import { withVersion } from '../core/versions.ts';

/**
 * The organisation item, declared once (lib/db/core/item.ts): what its answer shows and the counts kept
 * on it, each moved in the transaction that creates or deletes what it counts (its projects and
 * accounts, the `X-Total-Count` of their lists; its webhook endpoints, within their limit; its
 * attachments' bytes, within the quota), and its settings: absent, a setting is the stage's default.
 */
export const organisationItem = itemKind({
  type: 'organisation',
  key: keys.org.placement,
  about: 'organisation (+ projects/accounts/webhooks count, attachment bytes, pending uploads, settings)',
  attributes: {
    id: attribute.number('id'),
    name: attribute.string('name'),
    projectsCount: attribute.counter('projects_count'),
    accountsCount: attribute.counter('accounts_count'),
    webhooksCount: attribute.counter('webhooks_count'),
    /** The bytes of its attachments (lib/db/attachments/attachments.ts: the quota, and its rebuild). */
    attachmentBytes: attribute.counter('attachment_bytes'),
    /** Its pending attachments (declared, not completed) and their bytes, within their caps (lib/db/attachments/attachments.ts). */
    pendingAttachments: attribute.counter('pending_attachments'),
    pendingAttachmentBytes: attribute.counter('pending_attachment_bytes'),
    createdAt: attribute.string('created_at'),
    /** Days a deleted item stays in its trash (`PATCH /organisation`); none: the stage's (`trashRetentionDays`, lib/config.ts). */
    trashRetentionDays: attribute.nullableNumber('trash_retention_days'),
  },
});

/** A stored organisation as read, before it is decoded. */
export type OrganisationItem = Stored<typeof organisationItem.attributes>;
/** A stored organisation, decoded. */
export type OrganisationFields = Fields<typeof organisationItem.attributes>;

/** The stored names of the organisation's counts (what `addTo` moves). */
export const organisationCounter = {
  projects: organisationItem.stored('projectsCount'),
  accounts: organisationItem.stored('accountsCount'),
  webhooks: organisationItem.stored('webhooksCount'),
  attachmentBytes: organisationItem.stored('attachmentBytes'),
  pendingAttachments: organisationItem.stored('pendingAttachments'),
  pendingAttachmentBytes: organisationItem.stored('pendingAttachmentBytes'),
} as const;

/** The stored item of a new organisation: its first account counted. */
export const newOrganisationItem = (orgId: number, name: string, createdAt: string): Record<string, unknown> => ({
  ...keys.org(orgId),
  type: organisationItem.type,
  ...organisationItem.encode({ id: orgId, name, projectsCount: 0, accountsCount: 1, createdAt }),
});

/** The organisation as answered (`GET /me`). */
export const toOrganisation = (o: OrganisationFields): Organisation => ({ id: o.id, name: o.name, created_at: o.createdAt });

/** An organisation's item decoded (a read item, or none). */
export const organisationOf = (item: object | undefined): OrganisationFields | undefined => item && organisationItem.decode(item);

/** The organisation, read consistently, or undefined when there is none. */
export async function getOrganisation(orgId: number): Promise<OrganisationFields | undefined> {
  return organisationOf(await getItem(keys.org(orgId)));
}

/**
 * The days an item deleted now stays in the organisation's trash: its own setting, else the
 * stage's. A delete reads the organisation in the read it makes anyway (the item it deletes, in one
 * BatchGetItem), so this costs it no call.
 */
export const trashRetentionOf = (org: OrganisationFields | undefined): number =>
  org?.trashRetentionDays ?? config().trashRetentionDays;

/** The organisation as read or written, decoded, with its version (its ETag). */
export interface VersionedOrganisation {
  fields: OrganisationFields;
  /** Its key and version, for `withVersion`. */
  record: object;
}

/** The organisation with its version, read consistently, or undefined. */
export async function getVersionedOrganisation(orgId: number): Promise<VersionedOrganisation | undefined> {
  const item = await getItem(keys.org(orgId));
  return item && { fields: organisationItem.decode(item), record: item };
}

/**
 * Changes the organisation's settings given (a null one goes back to the stage's default), in one
 * UpdateItem: the request's resource, so `If-Match` names its version; with none given it still
 * writes (and so checks `If-Match`, and moves the version as every update does). Refused
 * `organisation` when it is gone.
 */
export async function setOrganisationSettings(
  orgId: number,
  settings: { trashRetentionDays?: number | null | undefined },
): Promise<VersionedOrganisation> {
  const days = settings.trashRetentionDays;
  const written = await updateResource(
    {
      Key: keys.org(orgId),
      // Its id, as it is, whatever else is set: a write with no setting given still writes.
      ...organisationItem.update({
        set: { id: orgId, ...(typeof days === 'number' && { trashRetentionDays: days }) },
        remove: days === null ? ['trashRetentionDays'] : [],
        if: { exists: true },
      }),
    },
    'organisation',
  );
  return { fields: organisationItem.decode(written), record: written };
}

/** An answer with the organisation's version (its ETag). */
export const organisationAnswer = <T extends object>(o: VersionedOrganisation, answer: T): T => withVersion(answer, o.record);

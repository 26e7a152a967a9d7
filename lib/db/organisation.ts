import type { Organisation } from '../schemas/accounts.ts';
import { attribute, itemKind, type Fields, type Stored } from './item.ts';
import { keys } from './keys.ts';
import { getItem } from './transactions.ts';

/**
 * The organisation item, declared once (lib/db/item.ts): what its answer shows and the counts kept
 * on it, each moved in the transaction that creates or deletes what it counts (its projects and
 * accounts, the `X-Total-Count` of their lists; its webhook endpoints, within their limit; its
 * attachments' bytes, within the quota).
 */
export const organisationItem = itemKind({
  type: 'organisation',
  key: { PK: 'ORG#o', SK: 'ORG' },
  about: 'organisation (+ projects/accounts/webhooks count, attachment bytes)',
  attributes: {
    id: attribute.number('id'),
    name: attribute.string('name'),
    projectsCount: attribute.counter('projects_count'),
    accountsCount: attribute.counter('accounts_count'),
    webhooksCount: attribute.counter('webhooks_count'),
    /** The bytes of its attachments (lib/db/attachments.ts: the quota, and its rebuild). */
    attachmentBytes: attribute.counter('attachment_bytes'),
    createdAt: attribute.string('created_at'),
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

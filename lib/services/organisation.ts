import {
  getVersionedOrganisation,
  organisationAnswer,
  setOrganisationSettings,
  trashRetentionOf,
  type VersionedOrganisation,
} from '../db/organisation/organisation.ts';
import type { OrganisationRefusal } from '../db/core/refusals.ts';
import type { Principal } from '../model/principal.ts';
import type { OrganisationSettings, OrganisationUpdate } from '../schemas/organisation.ts';
import { ForbiddenError, NotFoundError } from '../vocabulary/errors.ts';
import { refusedAs, type Meanings } from './refusals.ts';

const refusals = { organisation: () => new NotFoundError('Organisation') } satisfies Meanings<OrganisationRefusal>;

/** The organisation as answered, with its version (its ETag): its settings, each with the value in effect. */
function answer(o: VersionedOrganisation): OrganisationSettings {
  const { fields } = o;
  return organisationAnswer(o, {
    id: fields.id,
    name: fields.name,
    created_at: fields.createdAt,
    trash_retention_days: fields.trashRetentionDays,
    effective_trash_retention_days: trashRetentionOf(fields),
  });
}

/** `GET /organisation`: the caller's organisation and its settings (every member). */
export async function getOrganisationSettings(caller: Principal): Promise<OrganisationSettings> {
  const found = await getVersionedOrganisation(caller.orgId);
  if (!found) throw new NotFoundError('Organisation');
  return answer(found);
}

/**
 * `PATCH /organisation` (admins): changes its settings, in one write of its item (`If-Match` names
 * its version). A new trash retention applies to what is deleted from then on: what the trash holds
 * keeps the expiry its delete gave it (docs/trash.md).
 */
export async function updateOrganisation(caller: Principal, changes: OrganisationUpdate): Promise<OrganisationSettings> {
  if (caller.role !== 'admin') throw new ForbiddenError("Only admins may change the organisation's settings");
  const settings = { trashRetentionDays: changes.trash_retention_days };
  return answer(await refusedAs(refusals, () => setOrganisationSettings(caller.orgId, settings)));
}

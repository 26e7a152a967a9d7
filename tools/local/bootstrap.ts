import { lastOrganisationId } from '../../lib/db/sequences.ts';
import { createOrganisation } from '../../lib/services/accounts.ts';

/**
 * On a table that has never held an organisation, creates a default one with an admin account
 * and returns its token (shown once). Returns undefined when the table already has data.
 */
export async function bootstrapFirstOrganisation() {
  if ((await lastOrganisationId()) > 0) return undefined;
  return createOrganisation(process.env.DEFAULT_ORG_NAME ?? 'Default organisation', {
    name: process.env.DEFAULT_ADMIN_NAME ?? 'Admin',
    email: process.env.DEFAULT_ADMIN_EMAIL ?? 'admin@example.com',
  });
}

import { lastOrganisationId } from '../../lib/db/core/sequences.ts';
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

/** The admin CLI's own default target (tools/cli/admin.ts): left out of the command when it is this server's. */
const CLI_DEFAULTS = { endpoint: 'http://127.0.0.1:8000', tableName: 'sprint-ticketing' };

/**
 * What a later start prints in place of the token, which is stored hashed and never shown again:
 * the admin command that gives the first organisation's admin (organisation 1, account 1) a new
 * one, aimed at this server's table.
 */
export function tokenRegenerateHint(endpoint: string, tableName: string): string {
  const aws = Boolean(process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION);
  const env = [
    ...(endpoint !== CLI_DEFAULTS.endpoint || aws ? [`DYNAMODB_ENDPOINT=${endpoint}`] : []),
    ...(tableName !== CLI_DEFAULTS.tableName ? [`TABLE_NAME=${tableName}`] : []),
  ];
  const command = [...env, 'npm run -s admin -- token:regenerate --org 1 --account 1'].join(' ');
  return `\nAPI tokens are shown once. A new one for the first organisation's admin (the old one stops working):\n\n  ${command}\n`;
}

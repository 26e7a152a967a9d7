import { accountIdOfEmail } from '../db/organisation/accounts.ts';
import { createAccountInOrg, revokeToken } from './accounts.ts';

/**
 * The account GitHub's status automation writes as (docs/github.md), one per organisation: named
 * GitHub, with no token. Apart from lib/services/github.ts so that the import of an export file
 * makes it without carrying the secret box.
 */
const ACTOR = { name: 'GitHub', email: 'github@integrations.invalid', role: 'member' as const };

/** The account the automation writes as: the organisation's GitHub account, made the first time. */
export async function integrationActor(orgId: number): Promise<number> {
  const existing = await accountIdOfEmail(orgId, ACTOR.email);
  if (existing !== undefined) return existing;
  try {
    const { account } = await createAccountInOrg(orgId, ACTOR);
    await revokeToken(orgId, account.id);
    return account.id;
  } catch (err) {
    const raced = await accountIdOfEmail(orgId, ACTOR.email);
    if (raced === undefined) throw err;
    return raced;
  }
}

import { deleteGrant, findGrant } from '../db/organisation/oauth.ts';

/**
 * Revokes an OAuth grant: its live access and refresh tokens and the grant itself go in one
 * transaction (two calls: the grant read, then the deletes). A grant already gone is nothing to do;
 * one rotated meanwhile is read again, and the pair it moved to revoked. Each read and write is in
 * lib/db/organisation/oauth.ts.
 */
export async function revokeGrant(grant: string): Promise<void> {
  for (;;) {
    const pair = await findGrant(grant);
    if (!pair || (await deleteGrant(grant, pair))) return;
  }
}

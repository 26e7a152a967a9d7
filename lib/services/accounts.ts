import {
  accountItem,
  accountRefusals,
  getAccountItem,
  getAccountWithBucket,
  getAccountWithOrganisation,
  handleRefusals,
  insertAccount,
  insertOrganisation,
  listAccounts as listAccountItems,
  replaceToken,
  setAccountHandle,
} from '../db/organisation/accounts.ts';
import { getOrganisation, toOrganisation } from '../db/organisation/organisation.ts';

import type { PageRequest } from '../db/core/list.ts';
import { rereadOnStale, STALE } from '../db/core/transactions.ts';

import type { Account, AccountCreate, AccountUpdate, Me, Organisation } from '../schemas/accounts.ts';
import { ForbiddenError, HandleTakenError, NotFoundError, UnauthorizedError, ValidationError } from '../vocabulary/errors.ts';
import { handleRule, isHandle, normaliseHandle } from '../model/handles.ts';

import type { Principal } from '../model/principal.ts';
import { refusedAs, type Meanings } from './refusals.ts';

import { generateToken, hashToken } from '../model/tokens.ts';

import { type AccountRefusal, type HandleRefusal } from '../db/core/refusals.ts';
import { toAccount } from '../../lib/resources/organisation.ts';

const organisationMissing = () => new ValidationError(['organisation does not exist']);

/** What a refused account write means. */
const refusals = {
  [accountRefusals.emailTaken]: () => new ValidationError(['email has already been taken']),
  [accountRefusals.organisation]: organisationMissing,
} satisfies Meanings<AccountRefusal>;

/** Creates an organisation, its first admin account and that admin's token (shown once). */
export async function createOrganisation(
  name: string,
  admin: { name: string; email: string },
): Promise<{ organisation: Organisation; account: Account; token: string }> {
  const token = generateToken();
  const created = await insertOrganisation(name, admin, hashToken(token));
  return { ...created, token };
}

/**
 * Creates an account in an organisation given by id (admin CLI, tests) and returns it with its
 * first token (shown once). The organisation is checked first, so that a mistyped id leaves
 * nothing behind, not even an id sequence.
 */
export async function createAccountInOrg(
  orgId: number,
  input: AccountCreate,
  /** An export file's account (lib/services/import-export/import-export.ts): its own creation time. */
  createdAt?: string,
): Promise<{ account: Account; token: string }> {
  if (!(await getOrganisation(orgId))) throw organisationMissing();
  return issueAccount(orgId, input, createdAt);
}

async function issueAccount(
  orgId: number,
  input: AccountCreate,
  createdAt?: string,
): Promise<{ account: Account; token: string }> {
  const token = generateToken();
  const account = await refusedAs(refusals, () => insertAccount(orgId, input, hashToken(token), createdAt));
  return { account, token };
}

/** POST /accounts: admins only, in the caller's (existing) organisation. */
export async function createAccount(caller: Principal, input: AccountCreate) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may create accounts');
  return issueAccount(caller.orgId, input);
}

/** GET /me: the caller's account and organisation. */
export async function me(caller: Principal): Promise<Me> {
  const { account, org, unread } = await getAccountWithOrganisation(caller.orgId, caller.accountId);
  if (!account || !org) throw new NotFoundError('Account');
  return { account: toAccount(account), organisation: toOrganisation(org), unread_notifications: unread };
}

/** The handle as stored (lower-case), or a 422 that says the rule; null stays null (no handle). */
function checkedHandle(handle: string | null): string | null {
  if (handle === null) return null;
  if (!isHandle(handle)) throw new ValidationError([`handle ${handleRule}`]);
  return normaliseHandle(handle);
}

/**
 * Sets an account's handle (`null` clears it) and returns the account with its organisation: 422
 * with the rule for a handle that breaks it, 409 when another account of the organisation has it
 * in any case, 404 when the account is gone. The old handle is free once this returns. Read again
 * and written again while another change of the handle got there first.
 */
export async function setHandle(orgId: number, accountId: number, handle: string | null): Promise<Me> {
  const wanted = checkedHandle(handle);
  const refusals = { [handleRefusals.taken]: () => new HandleTakenError(wanted ?? '') } satisfies Meanings<HandleRefusal>;
  return rereadOnStale(async () => {
    const { account, org, unread } = await getAccountWithOrganisation(orgId, accountId);
    if (!account || !org) throw new NotFoundError('Account');
    const written = await refusedAs(refusals, () => setAccountHandle(orgId, account, wanted));
    return { account: toAccount(written), organisation: toOrganisation(org), unread_notifications: unread };
  });
}

/** PATCH /me: the caller changes its own account (its handle); answers as GET /me. */
export async function updateMe(caller: Principal, change: AccountUpdate): Promise<Me> {
  if (change.handle === undefined) return me(caller);
  return setHandle(caller.orgId, caller.accountId, change.handle);
}

/**
 * Gives accounts the handle they have elsewhere (a GitHub login, from an import), each only if it has
 * none yet and the handle is valid and free here; anything else leaves the account as it is.
 */
export async function adoptHandles(orgId: number, handles: ReadonlyMap<number, string>): Promise<void> {
  for (const [accountId, handle] of handles) {
    if (!isHandle(handle)) continue;
    const { account } = await getAccountWithOrganisation(orgId, accountId);
    if (!account || accountItem.field(account, 'handle') !== null) continue;
    await setHandle(orgId, accountId, handle).catch((err: unknown) => {
      if (!(err instanceof HandleTakenError)) throw err;
    });
  }
}

/** New token for an account (admin CLI); the previous one stops working at once. */
export async function regenerateToken(orgId: number, accountId: number): Promise<string> {
  const token = generateToken();
  await rotate(orgId, accountId, hashToken(token));
  return token;
}

/** Removes an account's token (admin CLI); it is refused from the next request on. */
export async function revokeToken(orgId: number, accountId: number): Promise<void> {
  await rotate(orgId, accountId, undefined);
}

/** Rotates an account's token, reading the account again while concurrent rotations win the race. */
async function rotate(orgId: number, accountId: number, newHash: string | undefined): Promise<void> {
  await rereadOnStale(async () => {
    const account = await getAccountItem(orgId, accountId);
    if (!account) throw new NotFoundError('Account');
    await replaceToken(orgId, account, newHash);
  });
}

/**
 * POST /me/token: a new token for the caller, replacing the very token of this request. If that
 * token was rotated or revoked since the authorizer accepted it, it no longer grants anything: 401,
 * and the account's current token is left alone.
 */
export async function regenerateOwnToken(caller: Principal): Promise<string> {
  const token = generateToken();
  await replaceOwnToken(caller, hashToken(token));
  return token;
}

/** DELETE /me/token: revokes the token of this request (401 if it is already gone). */
export async function revokeOwnToken(caller: Principal): Promise<void> {
  await replaceOwnToken(caller, undefined);
}

async function replaceOwnToken(caller: Principal, newHash: string | undefined): Promise<void> {
  // A new token takes over the bucket of this request's token: read with the account, in one call.
  const { account, tat } = newHash
    ? await getAccountWithBucket(caller.orgId, caller.accountId, caller.tokenHash)
    : { account: await getAccountItem(caller.orgId, caller.accountId), tat: undefined };
  const invalid = () => new UnauthorizedError('Invalid API token');
  if (!account || accountItem.field(account, 'tokenHash') !== caller.tokenHash) throw invalid();
  // Rotated or revoked since it was read: this request's token no longer grants anything.
  await refusedAs({ [STALE]: invalid }, () => replaceToken(caller.orgId, account, newHash, { tat }));
}

export async function listAccounts(caller: Principal, page: PageRequest) {
  const { page: result, org } = await listAccountItems(caller.orgId, page);
  return { page: result, items: result.items.map(toAccount), total: org?.accountsCount ?? 0 };
}

import {
  accountItem,
  accountRefusals,
  getAccountItem,
  getAccountWithBucket,
  getAccountWithOrganisation,
  insertAccount,
  insertOrganisation,
  listAccounts as listAccountItems,
  replaceToken,
} from '../db/organisation/accounts.ts';
import { getOrganisation, toOrganisation } from '../db/organisation/organisation.ts';

import type { PageRequest } from '../db/core/list.ts';
import { rereadOnStale, STALE } from '../db/core/transactions.ts';

import type { Account, AccountCreate, Organisation } from '../schemas/accounts.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../vocabulary/errors.ts';

import type { Principal } from '../model/principal.ts';
import { refusedAs, type Meanings } from './refusals.ts';

import { generateToken, hashToken } from '../model/tokens.ts';

import { type AccountRefusal } from '../db/core/refusals.ts';
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
export async function me(caller: Principal): Promise<{ account: Account; organisation: Organisation }> {
  const { account, org } = await getAccountWithOrganisation(caller.orgId, caller.accountId);
  if (!account || !org) throw new NotFoundError('Account');
  return { account: toAccount(account), organisation: toOrganisation(org) };
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

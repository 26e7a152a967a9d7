import type { Account, Organisation, Role } from '../../schemas/accounts.ts';
import { tableName } from '../core/client.ts';
import { collections, keys, listKeys } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import { queryPages } from '../core/query.ts';
import { nextId, nextOrgId } from '../core/sequences.ts';
import { attribute, itemKind, type Stored } from '../core/item.ts';
import { bucketStateOf, tokenItem } from './tokens.ts';
import { unreadOf } from './inbox.ts';
import { newOrganisationItem, organisationCounter, organisationOf, type OrganisationFields } from './organisation.ts';
import { addTo, putNew, getItem, batchGet, STALE, transact, type GuardedItem } from '../core/transactions.ts';

/**
 * Why an account write can be refused (`Refused.reason`): the e-mail is taken in the organisation,
 * or the organisation is gone. A token rotation that lost a race is refused as `STALE`.
 */
export const accountRefusals = { emailTaken: 'email_taken', organisation: 'organisation' } as const;

/** Why setting a handle can be refused: another account of the organisation has it. A handle changed since it was read is `STALE`. */
export const handleRefusals = { taken: 'handle_taken' } as const;

/** An account's item, declared once (lib/db/core/item.ts): what its answer shows, its token and its count of assigned issues. */
export const accountItem = itemKind({
  type: 'account',
  key: { ...keys.account.placement, LSK: listKeys.account.placement },
  about: 'account',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    name: attribute.string('name'),
    email: attribute.string('email'),
    /** Its handle for @mentions (lib/model/handles.ts), lower-case; none until one is set. */
    handle: attribute.optionalString('handle'),
    role: attribute.oneOf<Role, 'role'>('role'),
    /** The SHA-256 of its API token; none while it has none (revoked). */
    tokenHash: attribute.laterString('token_hash'),
    /** Its assigned issues (the `assignee-index` derivation, lib/model/derivations.ts: `ASSIGNED_COUNT`). */
    assignedCount: attribute.counter('assigned_count'),
    createdAt: attribute.string('created_at'),
  },
});
/** A stored account as read, before it is decoded. */
export type AccountItem = Stored<typeof accountItem.attributes>;

/**
 * The item of a token: whose it is, with the account's role and name (the principal of its
 * requests, lib/db/organisation/tokens.ts; no route renames an account, so the name never goes stale), and its
 * rate-limit state when one is carried over.
 */
function tokenPut(
  orgId: number,
  account: { id: number; role: Role; name: string },
  tokenHash: string,
  tat?: number,
): GuardedItem {
  // 256 random bits: a clash is not a case to handle, only a write never to overwrite.
  return putNew({
    ...keys.token(tokenHash),
    ...tokenItem.encode({ orgId, accountId: account.id, role: account.role, name: account.name, tat }),
  });
}

/**
 * The guard of an e-mail address in an organisation (lower-cased, `keys.email`), written with the
 * account: a second account of the address is refused `email_taken`.
 */
export const emailGuardItem = itemKind({
  key: keys.email.placement,
  about: 'e-mail uniqueness guard',
  attributes: {
    accountId: attribute.number('account_id'),
  },
});

/**
 * The guard of a handle in an organisation (lower-cased, `keys.handle`), written with the account's
 * `handle`: it names the account that has it, so a second account of the handle is refused `handle_taken`.
 */
export const handleGuardItem = itemKind({
  key: keys.handle.placement,
  about: 'handle uniqueness guard',
  attributes: {
    accountId: attribute.number('account_id'),
  },
});

function accountItems(
  orgId: number,
  accountId: number,
  input: { name: string; email: string; role: Role },
  tokenHash: string,
  now: string,
): GuardedItem[] {
  return [
    // A fresh id from the sequence: never taken.
    putNew({
      ...keys.account(orgId, accountId),
      LSK: listKeys.account(accountId),
      type: accountItem.type,
      ...accountItem.encode({
        id: accountId,
        orgId,
        name: input.name,
        email: input.email,
        role: input.role,
        tokenHash,
        createdAt: now,
      }),
    }),
    putNew({ ...keys.email(orgId, input.email), ...emailGuardItem.encode({ accountId }) }, accountRefusals.emailTaken),
    tokenPut(orgId, { id: accountId, role: input.role, name: input.name }, tokenHash),
  ];
}

/** Creates an organisation with its first (admin) account and that account's token, atomically. */
export async function insertOrganisation(
  name: string,
  admin: { name: string; email: string },
  tokenHash: string,
): Promise<{ organisation: Organisation; account: Account }> {
  const orgId = await nextOrgId();
  const now = new Date().toISOString();
  const accountId = await nextId(orgId, 'account');
  await transact([
    // A fresh id from the global sequence: never taken.
    putNew(newOrganisationItem(orgId, name, now)),
    ...accountItems(orgId, accountId, { ...admin, role: 'admin' }, tokenHash, now),
  ]);
  return {
    organisation: { id: orgId, name, created_at: now },
    account: { id: accountId, name: admin.name, email: admin.email, handle: null, role: 'admin', created_at: now },
  };
}

/** Creates an account and its first token; the e-mail must be new in the organisation. */
export async function insertAccount(
  orgId: number,
  input: { name: string; email: string; role: Role },
  tokenHash: string,
  /** An export file's account (lib/services/import-export/import-export.ts): its own creation time. */
  createdAt?: string,
): Promise<Account> {
  const accountId = await nextId(orgId, 'account');
  const now = createdAt ?? new Date().toISOString();
  await transact([
    ...accountItems(orgId, accountId, input, tokenHash, now),
    addTo(keys.org(orgId), organisationCounter.accounts, 1, accountRefusals.organisation),
  ]);
  return { id: accountId, name: input.name, email: input.email, handle: null, role: input.role, created_at: now };
}

export async function getAccountItem(orgId: number, accountId: number): Promise<AccountItem | undefined> {
  return getItem<AccountItem>(keys.account(orgId, accountId));
}

/**
 * An account with the rate-limit bucket of one of its tokens, in one consistent BatchGetItem: what
 * regenerating the token of a request needs (the bucket carries over to the new token).
 */
export async function getAccountWithBucket(
  orgId: number,
  accountId: number,
  tokenHash: string,
): Promise<{ account?: AccountItem; tat: number | undefined }> {
  const [account, token] = await batchGet([keys.account(orgId, accountId), keys.token(tokenHash)]);
  return { account: account as AccountItem | undefined, tat: token && tokenItem.field(token, 'tat') };
}

/** An account with its organisation, in one consistent BatchGetItem (GET /me). */
export async function getAccountWithOrganisation(
  orgId: number,
  accountId: number,
): Promise<{ account?: AccountItem; org?: OrganisationFields | undefined; unread: number }> {
  const [account, org, inbox] = await batchGet([keys.account(orgId, accountId), keys.org(orgId), keys.inbox(orgId, accountId)]);
  return { account: account as AccountItem | undefined, org: organisationOf(org), unread: unreadOf(inbox) };
}

/**
 * Replaces an account's token (or removes it when `newHash` is undefined): the old token item is
 * deleted in the same transaction, so the old token is refused by the very next request. The new
 * token inherits the old one's rate-limit state, so rotating a token never refills its bucket.
 * Refused as `STALE`, changing nothing, when the account's token is no longer `account.token_hash`
 * (another rotation or revocation got there first).
 */
export async function replaceToken(
  orgId: number,
  account: AccountItem,
  newHash: string | undefined,
  /** The old token's bucket, when the caller read it with the account (`getAccountWithBucket`). */
  bucket?: { tat: number | undefined },
): Promise<void> {
  const carriedTat = newHash && account.token_hash ? (bucket ? bucket.tat : await bucketStateOf(account.token_hash)) : undefined;
  // On the token as read: that one, or none.
  const tokenReplaced = account.token_hash
    ? { set: { tokenHash: newHash }, if: { equals: { tokenHash: account.token_hash } } }
    : { set: { tokenHash: newHash }, if: { absent: ['tokenHash' as const] } };
  const items: GuardedItem[] = [accountItem.updateAt(keys.account(orgId, account.id), tokenReplaced, STALE)];
  if (account.token_hash) items.push({ item: { Delete: { TableName: tableName(), Key: keys.token(account.token_hash) } } });
  if (newHash) items.push(tokenPut(orgId, account, newHash, carriedTat));
  await transact(items);
}

/** A page of the organisation's accounts, read with the organisation (its `accounts_count`). */
export async function listAccounts(orgId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.accounts(orgId), page, [keys.org(orgId)]);
  return { page: result, org: organisationOf(related[0]) };
}

/** The names of the accounts of these tokens, in their order (one consistent BatchGetItem); undefined: none. */
export async function accountNames(tokens: { orgId: number; accountId: number }[]): Promise<(string | undefined)[]> {
  const accounts = await batchGet(tokens.map((t) => keys.account(t.orgId, t.accountId)));
  return accounts.map((a) => a?.[accountItem.stored('name')]).map((name) => (typeof name === 'string' ? name : undefined));
}

/** Every account of the organisation by its e-mail address (lower case): id, name, role (an import maps names onto them). */
export async function accountsByEmail(orgId: number): Promise<Map<string, { id: number; name: string; role: string }>> {
  const found = new Map<string, { id: number; name: string; role: string }>();
  const accounts = collections.accounts(orgId);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': accounts.pk, ':prefix': accounts.prefix },
      ...accountItem.projection(['id', 'email', 'name', 'role']),
    },
    {},
    (items) => {
      for (const { id, email, name, role } of items.map(accountItem.decode)) found.set(email.toLowerCase(), { id, name, role });
    },
  );
  return found;
}

/** The account of an e-mail address in an organisation (any case), by its guard: one consistent GetItem. */
export async function accountIdOfEmail(orgId: number, email: string): Promise<number | undefined> {
  const guard = await getItem(keys.email(orgId, email));
  return guard && emailGuardItem.decode(guard).accountId;
}

/**
 * Sets an account's handle (`handle`, already lower-case and checked by lib/model/handles.ts), or
 * clears it (`null`), in one transaction: the new handle's guard is put unless another account
 * has it (refused `handle_taken`), the old one's is deleted, and the account is updated on
 * condition it still has the handle it was read with (refused `STALE` otherwise, or when it is
 * gone). Returns the account as written.
 */
export async function setAccountHandle(orgId: number, account: AccountItem, handle: string | null): Promise<AccountItem> {
  const previous = accountItem.field(account, 'handle');
  if (previous === handle) return account;
  const accountId = accountItem.field(account, 'id');
  const ownerOf = handleGuardItem.stored('accountId');
  const items: GuardedItem[] = [
    accountItem.updateAt(
      keys.account(orgId, accountId),
      {
        set: { handle },
        if: previous === null ? { exists: true, absent: ['handle'] } : { exists: true, equals: { handle: previous } },
      },
      STALE,
    ),
  ];
  if (handle !== null) {
    items.push({
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.handle(orgId, handle), ...handleGuardItem.encode({ accountId }) },
          // Free, or already this account's: a guard is only ever written beside its account's `handle`.
          ConditionExpression: 'attribute_not_exists(PK) OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': ownerOf },
          ExpressionAttributeValues: { ':owner': accountId },
        },
      },
      reason: handleRefusals.taken,
    });
  }
  if (previous !== null) items.push({ item: { Delete: { TableName: tableName(), Key: keys.handle(orgId, previous) } } });
  await transact(items);
  const { [accountItem.stored('handle')]: _previous, ...rest } = account as Record<string, unknown>;
  return { ...rest, ...accountItem.encode({ handle }) } as AccountItem;
}

/** At most this many handles are looked up at once (one BatchGetItem). */
export const HANDLES_PER_LOOKUP = 100;

/**
 * The accounts of these handles in an organisation (any case), by their guards: one consistent
 * BatchGetItem of at most `HANDLES_PER_LOOKUP` distinct handles. The map is keyed by the lower-case
 * handle; a handle no account has is not in it.
 */
export async function accountIdsOfHandles(orgId: number, handles: string[]): Promise<Map<string, number>> {
  const wanted = [...new Set(handles.map((h) => h.toLowerCase()))];
  if (wanted.length > HANDLES_PER_LOOKUP) throw new RangeError(`at most ${HANDLES_PER_LOOKUP} handles are looked up at once`);
  const found = new Map<string, number>();
  if (wanted.length === 0) return found;
  const guards = await batchGet(wanted.map((h) => keys.handle(orgId, h)));
  guards.forEach((guard, i) => {
    if (guard) found.set(wanted[i]!, handleGuardItem.decode(guard).accountId);
  });
  return found;
}

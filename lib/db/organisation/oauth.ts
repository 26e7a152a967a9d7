import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../../schemas/accounts.ts';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { alsoIf, attribute, itemKind, type Fields } from '../core/item.ts';
import { keys } from '../core/keys.ts';
import { tableDefinition } from '../core/table.ts';
import { getItem, putNew, transact, type GuardedItem, isRefused, updateIf } from '../core/transactions.ts';

/**
 * The OAuth authorization server's items (lib/db/core/keys.ts): clients, codes, grants, refresh tokens,
 * and the access tokens, which are token items like API tokens (same key, same rate bucket, read
 * by the same authorizer: lib/db/organisation/tokens.ts) with a scope and an expiry. Every secret is stored as
 * its SHA-256 only.
 */

const isNumber = (v: unknown): v is number => typeof v === 'number';

export const oauthClientItem = itemKind({
  key: keys.oauthClient.placement,
  about: 'registered OAuth client (name, redirect URIs)',
  attributes: {
    clientId: attribute.string('client_id'),
    clientName: attribute.string('client_name'),
    redirectUris: {
      stored: 'redirect_uris',
      read: (v: unknown) => (Array.isArray(v) ? v.map(String) : []),
      write: (v: string[]) => v,
    },
    createdAt: attribute.string('created_at'),
    /** When a client never used to get a token goes (TTL); removed by its first grant. */
    expiresAt: attribute.laterNumber(tableDefinition.ttlAttribute),
  },
});
export type OAuthClient = Fields<typeof oauthClientItem.attributes>;

/** Who approved, for what: carried from the code to every token of the grant. */
const approvalAttributes = {
  orgId: attribute.number('org_id'),
  accountId: attribute.number('account_id'),
  role: attribute.oneOf<Role>('role'),
  name: attribute.laterString('name'),
  clientId: attribute.string('client_id'),
  /** Space-separated scopes. */
  scope: attribute.string('scope'),
};
export type Approval = Fields<typeof approvalAttributes>;

export const oauthCodeItem = itemKind({
  key: keys.oauthCode.placement,
  about: 'authorization code, used once (TTL `expires_at`)',
  attributes: {
    ...approvalAttributes,
    redirectUri: attribute.string('redirect_uri'),
    codeChallenge: attribute.string('code_challenge'),
    expiresAt: attribute.expiry(),
  },
});
export type OAuthCode = Fields<typeof oauthCodeItem.attributes>;

/** The principal of an OAuth access token, as the authorizer reads it (lib/db/organisation/tokens.ts), with its grant. */
export const oauthAccessTokenItem = itemKind({
  key: keys.token.placement,
  about: 'OAuth access token: the same + scope (TTL)',
  attributes: {
    ...approvalAttributes,
    grant: attribute.string('grant'),
    expiresAt: attribute.expiry(),
    /** The rate bucket carried over from the pair it replaces (lib/db/organisation/tokens.ts). */
    tat: { stored: 'tat', read: (v: unknown) => (isNumber(v) ? v : undefined), write: (v: number | undefined) => v || undefined },
  },
});

export const oauthGrantItem = itemKind({
  key: keys.oauthGrant.placement,
  about: 'an approval: hashes of its live token pair (TTL)',
  attributes: {
    orgId: approvalAttributes.orgId,
    accountId: approvalAttributes.accountId,
    clientId: approvalAttributes.clientId,
    scope: approvalAttributes.scope,
    accessHash: attribute.string('access_hash'),
    refreshHash: attribute.string('refresh_hash'),
    expiresAt: attribute.expiry(),
  },
});

export const oauthRefreshItem = itemKind({
  key: keys.oauthRefresh.placement,
  about: 'refresh token, kept marked used once rotated (TTL)',
  attributes: {
    ...approvalAttributes,
    grant: attribute.string('grant'),
    accessHash: attribute.string('access_hash'),
    used: { stored: 'used', read: (v: unknown) => v === true, write: (v: boolean) => v || undefined },
    expiresAt: attribute.expiry(),
  },
});
export type OAuthRefresh = Fields<typeof oauthRefreshItem.attributes>;

/** A token pair to write: hashes and expiries (Unix seconds). */
export interface Pair {
  accessHash: string;
  accessExpiresAt: number;
  refreshHash: string;
  refreshExpiresAt: number;
}

/** The count of client registrations from one address in one hour (the limit of `POST /oauth/register`), declared once. */
export const oauthRegistrationsItem = itemKind({
  key: keys.oauthRegistrations.placement,
  about: 'OAuth client registrations from an address in an hour (TTL)',
  attributes: {
    registrations: attribute.counter('registrations'),
    /** The end of its hour: the count goes with it. */
    expiresAt: attribute.expiry(),
  },
});

/**
 * Counts a registration from `address` in the hour `hour` (one UpdateItem), unless `limit` are
 * counted already: false then, and nothing changes. The count goes with its hour (TTL).
 */
export const countRegistration = (address: string, hour: number, limit: number): Promise<boolean> =>
  updateIf({
    Key: keys.oauthRegistrations(address, hour),
    ...alsoIf(oauthRegistrationsItem.update({ set: { expiresAt: (hour + 1) * 3600 }, add: { registrations: 1 } }), {
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': oauthRegistrationsItem.stored('registrations') },
      ExpressionAttributeValues: { ':limit': limit },
    }),
  });

export async function saveClient(client: OAuthClient): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.oauthClient(client.clientId), ...oauthClientItem.encode(client) },
    }),
  );
}

export async function findClient(clientId: string): Promise<OAuthClient | undefined> {
  const item = await getItem(keys.oauthClient(clientId));
  return item && oauthClientItem.decode(item);
}

export async function saveCode(codeHash: string, code: OAuthCode): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...keys.oauthCode(codeHash), ...oauthCodeItem.encode(code) } }));
}

/** Takes a code out (one DeleteItem): only one exchange can ever get it, however many race for it. */
export async function takeCode(codeHash: string): Promise<OAuthCode | undefined> {
  try {
    const out = await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.oauthCode(codeHash),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes && oauthCodeItem.decode(out.Attributes);
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    throw err;
  }
}

export async function findRefresh(refreshHash: string): Promise<OAuthRefresh | undefined> {
  const item = await getItem(keys.oauthRefresh(refreshHash));
  return item && oauthRefreshItem.decode(item);
}

/** The grant an access token belongs to (undefined for an API token or an unknown one). */
export async function grantOfAccessToken(accessHash: string): Promise<{ grant: string; clientId: string } | undefined> {
  const item = await getItem(keys.token(accessHash));
  if (!item) return undefined;
  const { grant, clientId } = oauthAccessTokenItem.decode(item);
  return item[oauthAccessTokenItem.stored('grant')] && item[oauthAccessTokenItem.stored('clientId')]
    ? { grant, clientId }
    : undefined;
}

/** The items of a token pair of a grant. `tat` carries a rate bucket over from the pair it replaces. */
function pairItems(grant: string, approval: Approval, pair: Pair, tat?: number): GuardedItem[] {
  const { orgId, accountId, role, name, clientId, scope } = approval;
  const principal = { orgId, accountId, role, name, clientId, scope, grant };
  return [
    putNew({
      ...keys.token(pair.accessHash),
      ...oauthAccessTokenItem.encode({ ...principal, expiresAt: pair.accessExpiresAt, tat }),
    }),
    putNew({
      ...keys.oauthRefresh(pair.refreshHash),
      ...oauthRefreshItem.encode({ ...principal, accessHash: pair.accessHash, expiresAt: pair.refreshExpiresAt }),
    }),
  ];
}

/**
 * A new grant with its first token pair: one transaction. Its client is used now, so it no longer
 * expires (refused as `client` when it is gone).
 */
export async function saveGrant(grant: string, approval: Approval, pair: Pair): Promise<void> {
  await transact([
    oauthClientItem.updateAt(keys.oauthClient(approval.clientId), { remove: ['expiresAt'], if: { exists: true } }, 'client'),
    putNew({
      ...keys.oauthGrant(grant),
      ...oauthGrantItem.encode({
        orgId: approval.orgId,
        accountId: approval.accountId,
        clientId: approval.clientId,
        scope: approval.scope,
        accessHash: pair.accessHash,
        refreshHash: pair.refreshHash,
        expiresAt: pair.refreshExpiresAt,
      }),
    }),
    ...pairItems(grant, approval, pair),
  ]);
}

/** Why a rotation was refused. */
export type RotationRefusal = 'reused' | 'revoked';

/**
 * Rotates a refresh token (one transaction): the old one is marked used (refused as `reused` when
 * it already was: a replay), the grant moves to the new pair (refused as `revoked` when the grant
 * is gone or has moved on), the new pair is written and the old access token deleted. The new
 * access token takes over the old one's rate bucket (`tat`), so rotating never refills it.
 */
export async function rotateRefresh(
  oldRefreshHash: string,
  old: OAuthRefresh,
  pair: Pair,
  tat: number | undefined,
): Promise<RotationRefusal | undefined> {
  try {
    await transact([
      oauthRefreshItem.updateAt(
        keys.oauthRefresh(oldRefreshHash),
        { set: { used: true }, if: { exists: true, absent: ['used'] } },
        'reused',
      ),
      oauthGrantItem.updateAt(
        keys.oauthGrant(old.grant),
        {
          set: { accessHash: pair.accessHash, refreshHash: pair.refreshHash, expiresAt: pair.refreshExpiresAt },
          if: { equals: { refreshHash: oldRefreshHash } },
        },
        'revoked',
      ),
      ...pairItems(old.grant, old, pair, tat),
      { item: { Delete: { TableName: tableName(), Key: keys.token(old.accessHash) } } },
    ]);
    return undefined;
  } catch (err) {
    if (isRefused(err, 'reused', 'revoked')) return err.reason;
    throw err;
  }
}

/** A grant's live token pair: what its revocation deletes (one consistent GetItem); undefined when it is gone. */
export async function findGrant(grant: string): Promise<{ accessHash: string; refreshHash: string } | undefined> {
  const found = await getItem(keys.oauthGrant(grant));
  if (!found) return undefined;
  const { accessHash, refreshHash } = oauthGrantItem.decode(found);
  return { accessHash, refreshHash };
}

/**
 * Deletes a grant and its live token pair as read (`findGrant`), in one transaction. False, deleting
 * nothing, when the grant has moved to another pair meanwhile (a rotation).
 */
export async function deleteGrant(grant: string, pair: { accessHash: string; refreshHash: string }): Promise<boolean> {
  try {
    await transact([
      {
        item: {
          Delete: {
            TableName: tableName(),
            Key: keys.oauthGrant(grant),
            ConditionExpression: '#refresh = :refresh',
            ExpressionAttributeNames: { '#refresh': oauthGrantItem.stored('refreshHash') },
            ExpressionAttributeValues: { ':refresh': pair.refreshHash },
          },
        },
        reason: 'moved',
      },
      { item: { Delete: { TableName: tableName(), Key: keys.token(pair.accessHash) } } },
      { item: { Delete: { TableName: tableName(), Key: keys.oauthRefresh(pair.refreshHash) } } },
    ]);
    return true;
  } catch (err) {
    if (isRefused(err, 'moved')) return false;
    throw err;
  }
}

import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../schemas/accounts.ts';
import { db, tableName } from './client.ts';
import { isConditionFailed } from './errors.ts';
import { keys } from './keys.ts';
import { getItem, putNew, transact, type GuardedItem, isRefused } from './transactions.ts';

/**
 * The OAuth authorization server's items (lib/db/keys.ts): clients, codes, grants, refresh tokens,
 * and the access tokens, which are token items like API tokens (same key, same rate bucket, read
 * by the same authorizer: lib/db/tokens.ts) with a scope and an expiry. Every secret is stored as
 * its SHA-256 only.
 */

export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  created_at: string;
  /** Unix seconds: when a client never used to get a token goes (TTL); removed by its first grant. */
  expires_at?: number;
}

/** Who approved, for what: carried from the code to every token of the grant. */
export interface Approval {
  org_id: number;
  account_id: number;
  role: Role;
  name?: string;
  client_id: string;
  /** Space-separated scopes. */
  scope: string;
}

export interface CodeItem extends Approval {
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
}

export interface RefreshItem extends Approval {
  grant: string;
  access_hash: string;
  used?: boolean;
  expires_at: number;
}

/** A token pair to write: hashes and expiries (Unix seconds). */
export interface Pair {
  accessHash: string;
  accessExpiresAt: number;
  refreshHash: string;
  refreshExpiresAt: number;
}

const strip = <T>(item: Record<string, unknown> | undefined): T | undefined => {
  if (!item) return undefined;
  const { PK: _pk, SK: _sk, ...rest } = item;
  return rest as T;
};

/**
 * Counts a registration from `address` in the hour `hour` (one UpdateItem), unless `limit` are
 * counted already: false then, and nothing changes. The count goes with its hour (TTL).
 */
export async function countRegistration(address: string, hour: number, limit: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.oauthRegistrations(address, hour),
        UpdateExpression: 'ADD registrations :one SET expires_at = :end',
        ConditionExpression: 'attribute_not_exists(registrations) OR registrations < :limit',
        ExpressionAttributeValues: { ':one': 1, ':end': (hour + 1) * 3600, ':limit': limit },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

export async function saveClient(client: OAuthClient): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...keys.oauthClient(client.client_id), ...client } }));
}

export const findClient = async (clientId: string) => strip<OAuthClient>(await getItem(keys.oauthClient(clientId)));

export async function saveCode(codeHash: string, code: CodeItem): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...keys.oauthCode(codeHash), ...code } }));
}

/** Takes a code out (one DeleteItem): only one exchange can ever get it, however many race for it. */
export async function takeCode(codeHash: string): Promise<CodeItem | undefined> {
  try {
    const out = await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.oauthCode(codeHash),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_OLD',
      }),
    );
    return strip<CodeItem>(out.Attributes);
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    throw err;
  }
}

export const findRefresh = async (refreshHash: string) => strip<RefreshItem>(await getItem(keys.oauthRefresh(refreshHash)));

/** The grant an access token belongs to (undefined for an API token or an unknown one). */
export async function grantOfAccessToken(accessHash: string): Promise<{ grant: string; client_id: string } | undefined> {
  const item = await getItem<{ grant?: string; client_id?: string }>(keys.token(accessHash));
  return item?.grant && item.client_id ? { grant: item.grant, client_id: item.client_id } : undefined;
}

/** The items of a token pair of a grant. `tat` carries a rate bucket over from the pair it replaces. */
function pairItems(grant: string, approval: Approval, pair: Pair, tat?: number): GuardedItem[] {
  const { org_id, account_id, role, name, client_id, scope } = approval;
  const principal = { org_id, account_id, role, ...(name === undefined ? {} : { name }), client_id, scope, grant };
  return [
    putNew({ ...keys.token(pair.accessHash), ...principal, expires_at: pair.accessExpiresAt, ...(tat ? { tat } : {}) }),
    putNew({
      ...keys.oauthRefresh(pair.refreshHash),
      ...principal,
      access_hash: pair.accessHash,
      expires_at: pair.refreshExpiresAt,
    }),
  ];
}

/**
 * A new grant with its first token pair: one transaction. Its client is used now, so it no longer
 * expires (refused as `client` when it is gone).
 */
export async function saveGrant(grant: string, approval: Approval, pair: Pair): Promise<void> {
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.oauthClient(approval.client_id),
          UpdateExpression: 'REMOVE expires_at',
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      reason: 'client',
    },
    putNew({
      ...keys.oauthGrant(grant),
      org_id: approval.org_id,
      account_id: approval.account_id,
      client_id: approval.client_id,
      scope: approval.scope,
      access_hash: pair.accessHash,
      refresh_hash: pair.refreshHash,
      expires_at: pair.refreshExpiresAt,
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
  old: RefreshItem,
  pair: Pair,
  tat: number | undefined,
): Promise<RotationRefusal | undefined> {
  try {
    await transact([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.oauthRefresh(oldRefreshHash),
            UpdateExpression: 'SET used = :true',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(used)',
            ExpressionAttributeValues: { ':true': true },
          },
        },
        reason: 'reused',
      },
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.oauthGrant(old.grant),
            UpdateExpression: 'SET access_hash = :a, refresh_hash = :r, expires_at = :e',
            ConditionExpression: 'refresh_hash = :old',
            ExpressionAttributeValues: {
              ':a': pair.accessHash,
              ':r': pair.refreshHash,
              ':e': pair.refreshExpiresAt,
              ':old': oldRefreshHash,
            },
          },
        },
        reason: 'revoked',
      },
      ...pairItems(old.grant, old, pair, tat),
      { item: { Delete: { TableName: tableName(), Key: keys.token(old.access_hash) } } },
    ]);
    return undefined;
  } catch (err) {
    if (isRefused(err, 'reused', 'revoked')) return err.reason;
    throw err;
  }
}

/**
 * Revokes a grant: its live access and refresh tokens and the grant itself go in one transaction
 * (two calls: the grant read, then the deletes). A grant already gone is nothing to do.
 */
export async function revokeGrant(grant: string): Promise<void> {
  const item = await getItem<{ access_hash: string; refresh_hash: string }>(keys.oauthGrant(grant));
  if (!item) return;
  try {
    await transact([
      {
        item: {
          Delete: {
            TableName: tableName(),
            Key: keys.oauthGrant(grant),
            ConditionExpression: 'refresh_hash = :r',
            ExpressionAttributeValues: { ':r': item.refresh_hash },
          },
        },
        reason: 'moved',
      },
      { item: { Delete: { TableName: tableName(), Key: keys.token(item.access_hash) } } },
      { item: { Delete: { TableName: tableName(), Key: keys.oauthRefresh(item.refresh_hash) } } },
    ]);
  } catch (err) {
    // Rotated meanwhile: revoke the pair it moved to.
    if (isRefused(err, 'moved')) return revokeGrant(grant);
    throw err;
  }
}

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { INTERVAL_MS, maxTatFor } from '../../model/ratelimit.ts';
import { scopesOf, type Principal } from '../../model/principal.ts';
import { db, tableName } from '../core/client.ts';
import { tableDefinition } from '../core/table.ts';
import { getItem, updateIf } from '../core/transactions.ts';
import { isConditionFailed } from '../core/errors.ts';
import { alsoIf, attribute, itemKind, type Stored, type UpdateExpressions } from '../core/item.ts';
import { keys, tokenPkPrefix, type Key } from '../core/keys.ts';
import { scanPages } from '../core/query.ts';

/**
 * A token's item, as the authorizer reads it: whose it is (the principal of its requests) and its
 * rate-limit bucket. An API token's (lib/db/organisation/accounts.ts writes it) and an OAuth access token's
 * (lib/db/organisation/oauth.ts: `oauthAccessTokenItem`, the same with a scope, an expiry and its grant) are read
 * alike.
 */
export const tokenItem = itemKind({
  key: keys.token.placement,
  about: 'API token → principal, rate-limit bucket',
  attributes: {
    orgId: attribute.number('org_id'),
    accountId: attribute.number('account_id'),
    role: attribute.oneOf<Principal['role'], 'role'>('role'),
    /** The account's name (lib/model/principal.ts); absent on a token issued before tokens carried it. */
    name: attribute.laterString('name'),
    /** Its bucket's theoretical arrival time (ms, lib/model/ratelimit.ts); absent: a full bucket. */
    tat: attribute.laterNumber('tat'),
    /** An OAuth access token's scopes (space-separated); absent on an API token, which may do everything. */
    scope: attribute.laterString('scope'),
    /** When an OAuth access token expires (Unix seconds; also the table's TTL). */
    expiresAt: attribute.laterNumber(tableDefinition.ttlAttribute),
  },
});
/** A stored token as read, before it is decoded. */
export type TokenItem = Stored<typeof tokenItem.attributes>;

/**
 * A token's bucket as one of its conditional writes left it (lib/jobs/token-buckets.ts chooses which
 * to send): admitted or not, its `tat`, and whose the token is.
 */
export interface Admission {
  admitted: boolean;
  tat: number;
  principal: Principal;
}

/**
 * Takes a request from a full bucket (tat in the past or unset): restarts it at now + one interval
 * (one conditional UpdateItem). Undefined: no such token.
 */
export async function admitFromFull(tokenHash: string, now: number): Promise<Admission | undefined> {
  return attempt(
    tokenHash,
    alsoIf(tokenItem.update({ set: { tat: now + INTERVAL_MS }, if: { exists: true } }), {
      ConditionExpression: '(attribute_not_exists(#bucket) OR #bucket <= :now)',
      ExpressionAttributeNames: { '#bucket': tokenItem.stored('tat') },
      ExpressionAttributeValues: { ':now': now },
    }),
  );
}

/**
 * Takes a request from a partly drained bucket (now < tat <= max): max(tat, now) is tat, so the
 * step is an atomic add (one conditional UpdateItem). Undefined: no such token.
 */
export async function admitFromDrained(tokenHash: string, now: number): Promise<Admission | undefined> {
  return attempt(
    tokenHash,
    alsoIf(tokenItem.update({ add: { tat: INTERVAL_MS }, if: { exists: true } }), {
      ConditionExpression: '#bucket > :now AND #bucket <= :max',
      ExpressionAttributeNames: { '#bucket': tokenItem.stored('tat') },
      ExpressionAttributeValues: { ':now': now, ':max': maxTatFor(now) },
    }),
  );
}

/** Sends one of the bucket's conditional writes: the token as written, or as it was when refused. */
async function attempt(tokenHash: string, update: UpdateExpressions): Promise<Admission | undefined> {
  let admitted = true;
  let item: TokenItem | undefined;
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(tokenHash),
        ...update,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    item = out.Attributes as TokenItem;
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    // The document client unmarshalls outputs, not errors: the old item arrives in wire format.
    const old = (err as { Item?: Record<string, AttributeValue> }).Item;
    admitted = false;
    item = old && (unmarshall(old) as TokenItem);
  }
  return item && { admitted, tat: tokenItem.field(item, 'tat') ?? 0, principal: principalOf(item, tokenHash) };
}

function principalOf(item: TokenItem, tokenHash: string): Principal {
  const t = tokenItem.decode(item);
  return {
    orgId: t.orgId,
    accountId: t.accountId,
    role: t.role,
    tokenHash,
    ...(t.name === undefined ? {} : { name: t.name }),
    ...(t.scope === undefined ? {} : { scopes: scopesOf(t.scope) }),
    ...(t.expiresAt === undefined ? {} : { expiresAt: t.expiresAt }),
  };
}

/** The rate-limit state (`tat`) of a token, if it has one; used to carry a bucket over to a regenerated token. */
export async function bucketStateOf(tokenHash: string): Promise<number | undefined> {
  const item = await getItem(keys.token(tokenHash), tokenItem.stored('tat'));
  return item && tokenItem.field(item, 'tat');
}

/** A token item without the account's name: whose it is, and its key (handed back to `nameToken`). */
export interface UnnamedToken {
  key: Key;
  orgId: number;
  accountId: number;
}

/**
 * One page of the Scan of token items without a name (of organisation `orgId` only, when given),
 * from `start`, of at most `limit` items read (none: DynamoDB's 1 MB). For the backfill of names
 * (lib/jobs/token-names.ts) only: no request path scans. `next`: where the next page starts
 * (undefined at the end).
 */
export async function scanUnnamedTokensPage(
  orgId: number | undefined,
  start?: Record<string, unknown>,
  limit?: number,
): Promise<{ tokens: UnnamedToken[]; next: Record<string, unknown> | undefined }> {
  let tokens: UnnamedToken[] = [];
  const next = await scanPages(
    {
      FilterExpression: `begins_with(PK, :token) AND attribute_not_exists(#name)${orgId === undefined ? '' : ' AND #org = :org'}`,
      ProjectionExpression: 'PK, SK, #org, #account',
      ExpressionAttributeNames: {
        '#name': tokenItem.stored('name'),
        '#org': tokenItem.stored('orgId'),
        '#account': tokenItem.stored('accountId'),
      },
      ExpressionAttributeValues: { ':token': tokenPkPrefix, ...(orgId === undefined ? {} : { ':org': orgId }) },
      ...(limit === undefined ? {} : { Limit: limit }),
    },
    (items) => {
      tokens = items.map((t) => ({
        key: { PK: String(t.PK), SK: String(t.SK) },
        orgId: tokenItem.field(t, 'orgId'),
        accountId: tokenItem.field(t, 'accountId'),
      }));
      return false;
    },
    start,
  );
  return { tokens, next };
}

/** Writes `name` on a token item that has none (one conditional UpdateItem): false when it is gone or has one. */
export const nameToken = (token: UnnamedToken, name: string): Promise<boolean> =>
  updateIf({ Key: token.key, ...tokenItem.update({ set: { name }, if: { exists: true, absent: ['name'] } }) });

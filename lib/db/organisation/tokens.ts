import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, INTERVAL_MS, maxTatFor, type RateDecision } from '../../model/ratelimit.ts';
import { scopesOf, type Principal } from '../../model/principal.ts';
import { db, tableName } from '../core/client.ts';
import { tableDefinition } from '../core/table.ts';
import { getItem } from '../core/transactions.ts';
import { isConditionFailed } from '../core/errors.ts';
import { alsoIf, attribute, itemKind, type Attribute, type Stored } from '../core/item.ts';
import { keys, type Key } from '../core/keys.ts';

/** A number the item has only once there is one: none reads undefined. */
const optionalNumber = <S extends string>(stored: S): Attribute<number | undefined, S> => ({
  stored,
  read: (v) => (v === undefined ? undefined : Number(v)),
  write: (v) => v,
});

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
    tat: optionalNumber('tat'),
    /** An OAuth access token's scopes (space-separated); absent on an API token, which may do everything. */
    scope: attribute.laterString('scope'),
    /** When an OAuth access token expires (Unix seconds; also the table's TTL). */
    expiresAt: optionalNumber(tableDefinition.ttlAttribute),
  },
});
/** A stored token as read, before it is decoded. */
export type TokenItem = Stored<typeof tokenItem.attributes>;

export type Authentication = { principal: Principal; rate: RateDecision } | undefined;

const MAX_ATTEMPTS = 8;

/**
 * Last `tat` this container saw per token: only a hint for which conditional update to try
 * first, so that a busy token and an idle one both usually cost one call. A wrong hint costs one
 * extra call, never correctness. Bounded: the oldest entry goes first.
 */
const tatHints = new Map<string, number>();
const MAX_HINTS = 10_000;

function remember(tokenHash: string, tat: number) {
  tatHints.delete(tokenHash);
  tatHints.set(tokenHash, tat);
  if (tatHints.size > MAX_HINTS) tatHints.delete(tatHints.keys().next().value as string);
}

type Attempt = { kind: 'admitted'; item: TokenItem } | { kind: 'failed'; item: TokenItem | undefined };

/** Full bucket (tat in the past or unset): restart it at now + one interval. */
async function admitFromFull(key: Key, now: number): Promise<Attempt> {
  return attempt(
    key,
    alsoIf(tokenItem.update({ set: { tat: now + INTERVAL_MS }, if: { exists: true } }), {
      ConditionExpression: '(attribute_not_exists(#bucket) OR #bucket <= :now)',
      ExpressionAttributeNames: { '#bucket': tokenItem.stored('tat') },
      ExpressionAttributeValues: { ':now': now },
    }),
  );
}

/** Partly drained (now < tat <= max): max(tat, now) is tat, so the step is an atomic add. */
async function admitFromDrained(key: Key, now: number): Promise<Attempt> {
  return attempt(key, {
    UpdateExpression: 'SET tat = tat + :interval',
    ConditionExpression: 'attribute_exists(PK) AND tat > :now AND tat <= :max',
    ExpressionAttributeValues: { ':interval': INTERVAL_MS, ':now': now, ':max': maxTatFor(now) },
  });
}

async function attempt(
  key: Key,
  update: Pick<
    UpdateCommandInput,
    'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >,
): Promise<Attempt> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...update,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'admitted', item: out.Attributes as TokenItem };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    // The document client unmarshalls outputs, not errors: the old item arrives in wire format.
    const old = (err as { Item?: Record<string, AttributeValue> }).Item;
    return { kind: 'failed', item: old && (unmarshall(old) as TokenItem) };
  }
}

/**
 * Looks a token up by its hash and takes one request from its bucket: one conditional UpdateItem
 * in the common cases, two when the hint of which case applies was stale. Returns undefined for an
 * unknown (never issued, revoked, regenerated) token.
 *
 * Exact under concurrency: every admitted request advances `tat` by one interval under a condition
 * that holds only in the case the update was written for, so no two requests spend the same slot.
 */
export async function authenticateAndConsume(tokenHash: string, now = Date.now()): Promise<Authentication> {
  const key = keys.token(tokenHash);
  const hint = tatHints.get(tokenHash);
  let busy = hint !== undefined && hint > now;
  let last: TokenItem | undefined;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = busy ? await admitFromDrained(key, now) : await admitFromFull(key, now);
    if (!result.item) return undefined; // no such token
    last = result.item;
    const tat = tokenItem.field(result.item, 'tat') ?? 0;
    remember(tokenHash, tat);
    if (result.kind === 'admitted') {
      return { principal: principalOf(result.item, tokenHash), rate: describe(tat, now, true) };
    }
    if (tat > maxTatFor(now)) return { principal: principalOf(result.item, tokenHash), rate: describe(tat, now, false) };
    busy = tat > now;
  }
  // Only under pathological contention: refusing is safe, the client retries after a second.
  return (
    last && {
      principal: principalOf(last, tokenHash),
      rate: { allowed: false, remaining: 0, resetAt: Math.ceil(now / 1000) + 1, retryAfter: 1 },
    }
  );
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

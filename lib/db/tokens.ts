import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, INTERVAL_MS, maxTatFor, type RateDecision } from '../model/ratelimit.ts';
import { scopesOf, type Principal } from '../model/principal.ts';
import { db, tableName } from './client.ts';
import { getItem } from './transactions.ts';
import { isConditionFailed } from './errors.ts';
import { keys, type Key } from './keys.ts';

export interface TokenItem {
  org_id: number;
  account_id: number;
  role: Principal['role'];
  /** The account's name (lib/model/principal.ts); absent on a token issued before tokens carried it. */
  name?: string;
  tat?: number;
  /** An OAuth access token's scopes (space-separated); absent on an API token, which may do everything. */
  scope?: string;
  /** When an OAuth access token expires (Unix seconds; also the table's TTL). */
  expires_at?: number;
}

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
  return attempt(key, {
    UpdateExpression: 'SET tat = :fresh',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(tat) OR tat <= :now)',
    ExpressionAttributeValues: { ':fresh': now + INTERVAL_MS, ':now': now },
  });
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
  update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, number> },
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
    const tat = Number(result.item.tat ?? 0);
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
  return {
    orgId: Number(item.org_id),
    accountId: Number(item.account_id),
    role: item.role,
    tokenHash,
    ...(typeof item.name === 'string' ? { name: item.name } : {}),
    ...(typeof item.scope === 'string' ? { scopes: scopesOf(item.scope) } : {}),
    ...(item.expires_at === undefined ? {} : { expiresAt: Number(item.expires_at) }),
  };
}

/** The rate-limit state (`tat`) of a token, if it has one; used to carry a bucket over to a regenerated token. */
export async function bucketStateOf(tokenHash: string): Promise<number | undefined> {
  const tat = (await getItem(keys.token(tokenHash), 'tat'))?.tat;
  return tat === undefined ? undefined : Number(tat);
}

import { scopesOf, type Principal } from '../model/principal.ts';
import type { RateDecision } from '../model/ratelimit.ts';
import type { Authentication } from '../jobs/token-buckets.ts';

/**
 * The authorizer hands the principal and the rate decision to the route handler through the
 * API Gateway authorizer context, whose values are strings/numbers/booleans only. The account's
 * name is the one value a user wrote: it travels percent-encoded, plain ASCII whatever it holds.
 */
export type AuthorizerContext = Record<string, string | number | boolean>;

export function toAuthorizerContext(auth: NonNullable<Authentication>): AuthorizerContext {
  const { principal, rate } = auth;
  return {
    orgId: principal.orgId,
    accountId: principal.accountId,
    role: principal.role,
    tokenHash: principal.tokenHash,
    ...(principal.name === undefined ? {} : { name: encodeURIComponent(principal.name) }),
    ...(principal.scopes === undefined ? {} : { scope: principal.scopes.join(' ') }),
    rateAllowed: rate.allowed,
    rateRemaining: rate.remaining,
    rateResetAt: rate.resetAt,
    rateRetryAfter: rate.retryAfter ?? 0,
  };
}

/** A name as `toAuthorizerContext` encoded it; one that is not percent-encoded is taken as it is. */
function decodedName(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Reads the context back (API Gateway stringifies every value). */
export function readAuthorizerContext(
  ctx: Record<string, unknown> | null | undefined,
): { principal: Principal; rate: RateDecision } | undefined {
  if (!ctx || ctx.orgId === undefined || ctx.accountId === undefined) return undefined;
  const role = String(ctx.role);
  if (role !== 'admin' && role !== 'member') return undefined;
  const allowed = ctx.rateAllowed === true || ctx.rateAllowed === 'true';
  return {
    principal: {
      orgId: Number(ctx.orgId),
      accountId: Number(ctx.accountId),
      role,
      tokenHash: String(ctx.tokenHash ?? ''),
      ...(typeof ctx.name === 'string' ? { name: decodedName(ctx.name) } : {}),
      // An OAuth access token's scopes (an empty string is no scope at all, never every scope).
      ...(typeof ctx.scope === 'string' ? { scopes: scopesOf(ctx.scope) } : {}),
    },
    rate: {
      allowed,
      remaining: Number(ctx.rateRemaining ?? 0),
      resetAt: Number(ctx.rateResetAt ?? 0),
      ...(allowed ? {} : { retryAfter: Math.max(1, Number(ctx.rateRetryAfter ?? 1)) }),
    },
  };
}

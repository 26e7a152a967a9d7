import { describe, expect, it } from 'vitest';
import { readAuthorizerContext, toAuthorizerContext } from '../../lib/http/context.ts';

/** The principal through the authorizer context, as API Gateway carries it (every value a string). */
describe('authorizer context', () => {
  const rate = { allowed: true, remaining: 599, resetAt: 1_795_000_000 };
  const principal = { orgId: 7, accountId: 12, role: 'member' as const, tokenHash: 'ab'.repeat(32) };
  const stringified = (ctx: Record<string, unknown>) => Object.fromEntries(Object.entries(ctx).map(([k, v]) => [k, String(v)]));

  it('carries an account name of any script as plain ASCII, and gives it back unchanged', () => {
    const name = 'Zoë 李 "Ω" %41 & <tag>';
    const ctx = toAuthorizerContext({ principal: { ...principal, name }, rate });
    expect(String(ctx.name)).toMatch(/^[\x20-\x7e]+$/);
    expect(readAuthorizerContext(stringified(ctx))).toEqual({ principal: { ...principal, name }, rate });
  });

  it('takes a name that is not percent-encoded as it is', () => {
    const ctx = stringified(toAuthorizerContext({ principal, rate }));
    expect(readAuthorizerContext({ ...ctx, name: '100% Ada' })?.principal.name).toBe('100% Ada');
  });

  it('leaves the name out for a token that carries none', () => {
    const ctx = toAuthorizerContext({ principal, rate });
    expect(ctx).not.toHaveProperty('name');
    expect(readAuthorizerContext(stringified(ctx))?.principal).toEqual(principal);
  });
});

import { describe, expect, it } from 'vitest';
import { refuseRepeatedTokenHeaders, tokenFromHeaders } from '../../lib/services/auth.ts';
import { UnauthorizedError } from '../../lib/vocabulary/errors.ts';
import { generateToken, hashToken, looksLikeToken, TOKEN_PREFIX } from '../../lib/model/tokens.ts';

describe('API tokens', () => {
  it('are "stk_" followed by 43 base64url characters (256 random bits)', () => {
    const token = generateToken();
    expect(TOKEN_PREFIX).toBe('stk_');
    expect(token).toMatch(/^stk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
  });

  it('never repeat', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
  });

  it('are recognised by their shape, and garbage is not', () => {
    expect(looksLikeToken(generateToken())).toBe(true);
    for (const bad of [
      '',
      'stk_',
      'stk_short',
      `xyz_${'a'.repeat(43)}`,
      `stk_${'a'.repeat(42)}`,
      `stk_${'a'.repeat(44)}`,
      `stk_${'a'.repeat(42)}=`,
      ` ${generateToken()}`,
    ]) {
      expect(looksLikeToken(bad), bad).toBe(false);
    }
  });

  it('are stored as their SHA-256, in hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = generateToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toBe(hashToken(generateToken()));
    expect(hashToken(token)).not.toContain(token.slice(4));
  });
});

describe('refuseRepeatedTokenHeaders', () => {
  const token = generateToken();

  it('refuses a token header API Gateway delivers more than once, in any case, with or without its multi-value copy', () => {
    const bearer = `Bearer ${token}`;
    const cases: [Record<string, string>, Record<string, string[]> | undefined][] = [
      [{ Authorization: bearer }, { Authorization: [bearer, bearer] }],
      [{ 'X-API-Token': token }, { 'X-API-Token': ['x', token] }],
      [{ Authorization: bearer }, { Authorization: [bearer], authorization: [bearer] }],
      [{ Authorization: bearer, authorization: bearer }, undefined],
    ];
    for (const [headers, multi] of cases) {
      expect(() => refuseRepeatedTokenHeaders(headers, multi), JSON.stringify(multi)).toThrow(UnauthorizedError);
      expect(() => refuseRepeatedTokenHeaders(headers, multi)).toThrow(/sent more than once/);
    }
  });

  it('lets one copy of each header through', () => {
    const bearer = `Bearer ${token}`;
    expect(() =>
      refuseRepeatedTokenHeaders(
        { Authorization: bearer, 'X-API-Token': token },
        { Authorization: [bearer], 'X-API-Token': [token] },
      ),
    ).not.toThrow();
    expect(() => refuseRepeatedTokenHeaders({ Authorization: bearer }, null)).not.toThrow();
  });
});

describe('tokenFromHeaders', () => {
  const token = generateToken();
  const other = generateToken();

  const refused = (headers: Record<string, string | undefined> | null | undefined) => {
    try {
      tokenFromHeaders(headers);
    } catch (err) {
      expect(err).toBeInstanceOf(UnauthorizedError);
      return (err as UnauthorizedError).message;
    }
    throw new Error(`accepted ${JSON.stringify(headers)}`);
  };

  it('reads Authorization: Bearer <token>, whatever the case of the header name or the scheme', () => {
    expect(tokenFromHeaders({ Authorization: `Bearer ${token}` })).toBe(token);
    expect(tokenFromHeaders({ authorization: `bearer ${token}` })).toBe(token);
    expect(tokenFromHeaders({ AUTHORIZATION: `BEARER  ${token} ` })).toBe(token);
  });

  it('reads X-API-Token: <token>', () => {
    expect(tokenFromHeaders({ 'X-API-Token': token })).toBe(token);
    expect(tokenFromHeaders({ 'x-api-token': ` ${token} ` })).toBe(token);
  });

  it('accepts both headers when they carry the same token', () => {
    expect(tokenFromHeaders({ Authorization: `Bearer ${token}`, 'X-API-Token': token })).toBe(token);
  });

  it('refuses both headers carrying different tokens', () => {
    expect(refused({ Authorization: `Bearer ${token}`, 'X-API-Token': other })).toMatch(/different tokens/);
    expect(refused({ 'x-api-token': other, authorization: `Bearer ${token}` })).toMatch(/different tokens/);
  });

  it('refuses a malformed Authorization header, even when X-API-Token is fine', () => {
    for (const value of [token, `Basic ${token}`, 'Bearer', 'Bearer ', `Bearer ${token} extra`, `Token ${token}`, '']) {
      expect(refused({ Authorization: value }), value).toMatch(/Bearer/);
    }
    expect(refused({ Authorization: `Basic ${token}`, 'X-API-Token': token })).toMatch(/Bearer/);
  });

  it('refuses a request without a token', () => {
    for (const headers of [
      null,
      undefined,
      {},
      { 'Content-Type': 'application/json' },
      { 'X-API-Token': '' },
      { 'X-API-Token': '   ' },
    ]) {
      expect(refused(headers), JSON.stringify(headers)).toMatch(/Missing/);
    }
  });
});

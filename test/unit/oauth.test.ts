import { describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_SECONDS,
  hasExpired,
  protectedResourceMetadata,
  parseScopes,
  pkceVerifies,
  redirectUriProblem,
  redirectUriRegistered,
  REFRESH_TOKEN_SECONDS,
} from '../../lib/model/oauth.ts';
import { ConfigurationError, parseBaseUrl, readConfig } from '../../lib/config.ts';
import { readAuthorizerContext, toAuthorizerContext } from '../../lib/http/context.ts';
import { bearerChallenge, resourceMetadataUrl, rfc9728MetadataUrl } from '../../lib/http/gateway-responses.ts';
import { annotations, scopeNeeded } from '../../lib/mcp/tool.ts';
import { endpoints, lenientQuery } from '../../lib/oauth/endpoints.ts';
import { approvalPage, csrfMatches } from '../../lib/oauth/page.ts';
import { routes } from '../../lib/routes.ts';

describe('PKCE (S256 only)', () => {
  // RFC 7636, appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('accepts the verifier that hashes to the challenge', () => {
    expect(pkceVerifies(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier, the plain method (verifier = challenge), and malformed verifiers', () => {
    expect(pkceVerifies(`${verifier.slice(0, -1)}A`, challenge)).toBe(false);
    expect(pkceVerifies(challenge, challenge)).toBe(false);
    expect(pkceVerifies('short', challenge)).toBe(false);
    expect(pkceVerifies('x'.repeat(129), challenge)).toBe(false);
    expect(pkceVerifies(`${verifier}+`, challenge)).toBe(false);
    expect(pkceVerifies(verifier, 'not-a-challenge')).toBe(false);
  });
});

describe('redirect URIs', () => {
  it('allows https anywhere and http on a loopback address only (RFC 8252)', () => {
    expect(redirectUriProblem('https://assistant.example.com/oauth/callback')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:8123/callback')).toBeUndefined();
    expect(redirectUriProblem('http://[::1]:8123/callback')).toBeUndefined();
    expect(redirectUriProblem('http://localhost:8123/callback')).toMatch(/loopback/);
    expect(redirectUriProblem('http://assistant.example.com/callback')).toMatch(/must be https/);
    expect(redirectUriProblem('com.example.app:/callback')).toMatch(/must be https/);
    expect(redirectUriProblem('https://assistant.example.com/cb#frag')).toMatch(/fragment/);
    expect(redirectUriProblem('https://user:pw@assistant.example.com/cb')).toMatch(/user information/);
    expect(redirectUriProblem('/callback')).toMatch(/not an absolute URL/);
  });

  it('matches a request’s redirect URI exactly, but for the port of a loopback one', () => {
    const registered = ['http://127.0.0.1:1000/callback', 'https://a.example.com/cb'];
    expect(redirectUriRegistered(registered, 'https://a.example.com/cb')).toBe(true);
    expect(redirectUriRegistered(registered, 'http://127.0.0.1:5555/callback')).toBe(true);
    expect(redirectUriRegistered(registered, 'http://127.0.0.1:5555/other')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://a.example.com:8443/cb')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://a.example.com/cb?x=1')).toBe(false);
    expect(redirectUriRegistered(registered, 'http://[::1]:1000/callback')).toBe(false);
  });
});

describe('expiry', () => {
  it('counts a token expired from its expiry second on, and one without expiry never', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const second = now / 1000;
    expect(hasExpired(second + 1, now)).toBe(false);
    expect(hasExpired(second, now)).toBe(true);
    expect(hasExpired(second - 1, now)).toBe(true);
    expect(hasExpired(undefined, now)).toBe(false);
    expect(ACCESS_TOKEN_SECONDS).toBe(3600);
    expect(REFRESH_TOKEN_SECONDS).toBe(30 * 86_400);
  });
});

describe('scopes', () => {
  it('reads a scope string in canonical order, defaults to read and write, refuses unknown scopes', () => {
    expect(parseScopes('delete read')).toEqual(['read', 'delete']);
    expect(parseScopes(undefined)).toEqual(['read', 'write']);
    expect(parseScopes('  ')).toEqual(['read', 'write']);
    expect(parseScopes('read admin')).toEqual({ error: 'Unknown scope: admin (known: read write delete)' });
  });

  it('asks read of read-only tools, delete of destructive ones and write of the rest', () => {
    expect(scopeNeeded(annotations.read)).toBe('read');
    expect(scopeNeeded(annotations.create)).toBe('write');
    expect(scopeNeeded(annotations.update)).toBe('write');
    expect(scopeNeeded(annotations.delete)).toBe('delete');
  });

  it('carries an OAuth token’s scopes through the authorizer context, an empty grant as none (never as all)', () => {
    const rate = { allowed: true, remaining: 1, resetAt: 1 };
    const principal = { orgId: 1, accountId: 2, role: 'member' as const, tokenHash: 'h' };
    const back = (scopes?: ('read' | 'write' | 'delete')[]) =>
      readAuthorizerContext(toAuthorizerContext({ principal: { ...principal, scopes }, rate }))?.principal.scopes;
    expect(back(['read', 'delete'])).toEqual(['read', 'delete']);
    expect(back([])).toEqual([]);
    expect(back(undefined)).toBeUndefined();
  });
});

describe('the issuer', () => {
  it('is the configured base URL (PUBLIC_URL): scheme, host and the stage path, never a request header', () => {
    expect(parseBaseUrl('https://abc.execute-api.eu-west-1.amazonaws.com/prod/', 'PUBLIC_URL')).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    );
    expect(parseBaseUrl('https://api.example.com', 'PUBLIC_URL')).toBe('https://api.example.com');
    expect(parseBaseUrl('http://127.0.0.1:3000/', 'PUBLIC_URL')).toBe('http://127.0.0.1:3000');
    for (const bad of [
      'api.example.com',
      'ftp://api.example.com',
      'https://api.example.com/?stage=1',
      'https://u:p@api.example.com',
    ]) {
      expect(() => parseBaseUrl(bad, 'PUBLIC_URL'), bad).toThrow(ConfigurationError);
    }
    expect(readConfig({ PUBLIC_URL: 'https://api.example.com/' }, false).publicUrl).toBe('https://api.example.com');
    expect(readConfig({}, false).publicUrl).toBeUndefined();
  });

  it('puts /mcp’s metadata where RFC 9728 says, and under the stage where API Gateway’s own host cannot route that', () => {
    const metadataAsked = (host: string, stage: string) => {
      const pointer = resourceMetadataUrl(`https://${host}${stage}`);
      const url = new URL(pointer);
      // The request API Gateway hands the function for that URL: `path` without the stage, `requestContext.path` with it.
      const path = url.pathname.slice(stage.length);
      expect(path).toBe('/.well-known/oauth-protected-resource/mcp');
      const issuer = parseBaseUrl(`https://${host}${stage}`, 'PUBLIC_URL');
      return { pointer, resource: protectedResourceMetadata(issuer).resource, issuer };
    };
    // A custom domain: exactly RFC 9728's location of the resource's metadata.
    const custom = metadataAsked('api.example.com', '');
    expect(custom).toEqual({
      pointer: 'https://api.example.com/.well-known/oauth-protected-resource/mcp',
      resource: 'https://api.example.com/mcp',
      issuer: 'https://api.example.com',
    });
    expect(rfc9728MetadataUrl(custom.resource)).toBe(custom.pointer);
    // API Gateway's own host: the resource and the issuer carry the stage; the pointer is the
    // stage's (RFC 9728's `/.well-known/oauth-protected-resource/prod/mcp` would name a stage `.well-known`).
    const host = 'abc.execute-api.eu-west-1.amazonaws.com';
    const staged = metadataAsked(host, '/prod');
    expect(staged).toEqual({
      pointer: `https://${host}/prod/.well-known/oauth-protected-resource/mcp`,
      resource: `https://${host}/prod/mcp`,
      issuer: `https://${host}/prod`,
    });
    expect(rfc9728MetadataUrl(staged.resource)).toBe(`https://${host}/.well-known/oauth-protected-resource/prod/mcp`);
    expect(bearerChallenge(`https://${host}/prod`)).toBe(`Bearer resource_metadata="${staged.pointer}"`);
    // The route the pointer names exists, on the same function as the other metadata.
    expect(routes.some((r) => r.method === 'GET' && r.path === '/.well-known/oauth-protected-resource/mcp')).toBe(true);
    expect(endpoints['GET /.well-known/oauth-protected-resource/mcp']).toBe(
      endpoints['GET /.well-known/oauth-protected-resource'],
    );
  });
});

describe('the authorization page', () => {
  it('escapes what a client wrote and what a request carried', () => {
    const html = approvalPage({
      clientName: '<script>alert(1)</script>',
      redirectUri: 'https://a.example.com/cb',
      scopes: ['read'],
      params: { state: '"><img src=x onerror=alert(1)>' },
      csrf: 'c',
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });

  it('accepts a form only with the CSRF value of its cookie', () => {
    const value = 'a'.repeat(43);
    expect(csrfMatches(`other=1; sts_oauth_csrf=${value}`, value)).toBe(true);
    expect(csrfMatches(`sts_oauth_csrf=${value}`, 'b'.repeat(43))).toBe(false);
    expect(csrfMatches(undefined, value)).toBe(false);
    expect(csrfMatches(`sts_oauth_csrf=${value}`, undefined)).toBe(false);
  });
});

describe('the OAuth function', () => {
  it('has an endpoint for exactly the OAuth rows of the route table, lenient on the query where they are', () => {
    const rows = routes.filter((r) => r.handler === 'functions/oauth.ts');
    expect(Object.keys(endpoints).sort()).toEqual(rows.map((r) => `${r.method} ${r.path}`).sort());
    expect([...lenientQuery].sort()).toEqual(
      rows
        .filter((r) => r.operation.lenientQuery)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
  });
});

import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, useGateway } from '../support/api.ts';
import { authorizeOverHttp, pkcePair, postForm, registerOAuthClient } from '../support/oauth.ts';

/**
 * The authorization server's rules over HTTP (the local gateway, every JSON answer held against
 * the OpenAPI document): discovery documents, registration, the page's refusals, the code and
 * refresh exchanges' refusals, revocation. The whole flow through the SDK and a browser is
 * test/e2e/oauth.test.ts.
 */
const gateway = useGateway();
const anon = () => apiClient(gateway.baseUrl);

/** A GET with exactly these headers, `Host` included (which fetch cannot forge). */
function rawGet(path: string, headers: Record<string, string>) {
  const url = new URL(path, gateway.baseUrl);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: url.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function approved(scope = 'read write') {
  const org = await newOrganisation();
  const client = await registerOAuthClient(gateway.baseUrl);
  const flow = await authorizeOverHttp(gateway.baseUrl, client, { token: org.admin.token, scope });
  return { org, client, ...flow };
}

const exchange = (client: { clientId: string }, code: string, verifier: string) =>
  postForm(gateway.baseUrl, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    code,
    code_verifier: verifier,
  });

describe('discovery', () => {
  it('names the configured address whatever Host the request carries: a forged one changes nothing', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const honest = await anon().get(path, { token: null });
      expect(honest.status).toBe(200);
      expect(honest.text).toContain(gateway.baseUrl);
      for (const host of ['evil.example.com', 'evil.example.com:3000', '127.0.0.1:1']) {
        const forged = await rawGet(path, { Host: host, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': host });
        expect(forged.status, `${path} Host: ${host}`).toBe(200);
        expect(forged.text, `${path} Host: ${host}`).toBe(honest.text);
        expect(forged.text).not.toContain('evil');
      }
    }
    // And so does the 401 that points at them.
    const challenge = await rawGet('/mcp', { Host: 'evil.example.com' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${gateway.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('describes /mcp and its authorization server at the well-known addresses, from the configured address', async () => {
    const base = gateway.baseUrl;
    const resource = await anon().get('/.well-known/oauth-protected-resource', { token: null });
    expect(resource.status).toBe(200);
    expect(resource.body).toMatchObject({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['read', 'write', 'delete'],
    });
    // RFC 9728's location for /mcp (the one the WWW-Authenticate challenge names): the same document.
    const pathAware = await anon().get('/.well-known/oauth-protected-resource/mcp', { token: null });
    expect(pathAware.status).toBe(200);
    expect(pathAware.body).toEqual(resource.body);
    const server = await anon().get('/.well-known/oauth-authorization-server', { token: null });
    expect(server.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    expect((await anon().get('/.well-known/oauth-authorization-server?x=1', { token: null })).status).toBe(422);
  });

  it('answers a refused /mcp request with a WWW-Authenticate pointer to the metadata', async () => {
    const res = await anon().post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gateway.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

describe('registration', () => {
  const register = (body: unknown) => anon().post('/oauth/register', body, { token: null });

  it('registers a public client with https or loopback redirect URIs, and refuses every other kind', async () => {
    const ok = await register({
      client_name: 'Web assistant',
      redirect_uris: ['https://assistant.example.com/cb', 'http://[::1]:9/cb'],
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ client_name: 'Web assistant', token_endpoint_auth_method: 'none' });
    expect(ok.body.client_id).toMatch(/^stc_/);
    for (const uri of ['http://localhost:9/cb', 'http://assistant.example.com/cb', 'myapp://cb', 'https://a.example.com/cb#x']) {
      const refused = await register({ redirect_uris: [uri] });
      expect(refused.status, uri).toBe(400);
      expect(refused.body.error, uri).toBe('invalid_redirect_uri');
    }
  });

  it('refuses confidential clients, other grant types and a body without redirect URIs', async () => {
    const uris = ['http://127.0.0.1:9/cb'];
    expect((await register({ redirect_uris: uris, token_endpoint_auth_method: 'client_secret_basic' })).body.error).toBe(
      'invalid_client_metadata',
    );
    expect((await register({ redirect_uris: uris, grant_types: ['client_credentials'] })).body.error).toBe(
      'invalid_client_metadata',
    );
    const missing = await register({ client_name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_client_metadata');
  });
});

describe('the authorization page', () => {
  const page = (params: Record<string, string>) =>
    fetch(`${gateway.baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const request = (clientId: string, extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/callback',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 's1',
    ...extra,
  });

  it('shows the client and the scopes asked, sets a strict CSRF cookie, may not be framed, and ignores unknown parameters', async () => {
    const client = await registerOAuthClient(gateway.baseUrl, 'http://127.0.0.1:9/callback', '<b>Bold</b> assistant');
    const res = await page(request(client.clientId, { scope: 'read delete', prompt: 'consent', unknown: '1' }));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('&lt;b&gt;Bold&lt;/b&gt; assistant');
    expect(html).toContain('value="read"');
    expect(html).toContain('value="delete"');
    expect(html).not.toContain('value="write"');
    expect(html).not.toMatch(/<script/i);
    expect(res.headers.get('set-cookie')).toMatch(/^sts_oauth_csrf=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('accepts the registered loopback redirect URI on another port', async () => {
    const client = await registerOAuthClient(gateway.baseUrl, 'http://127.0.0.1:9/callback');
    expect((await page(request(client.clientId, { redirect_uri: 'http://127.0.0.1:4567/callback' }))).status).toBe(200);
  });

  it('shows an error and never redirects for an unknown client or an unregistered redirect URI', async () => {
    const client = await registerOAuthClient(gateway.baseUrl, 'http://127.0.0.1:9/callback');
    for (const params of [
      request('stc_AAAAAAAAAAAAAAAAAAAAAA'),
      request(client.clientId, { redirect_uri: 'https://evil.example.com/cb' }),
    ]) {
      const res = await page(params);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  it('sends other refusals back to the client: no PKCE, the plain method, an unknown scope, another resource', async () => {
    const client = await registerOAuthClient(gateway.baseUrl, 'http://127.0.0.1:9/callback');
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge: '' }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ scope: 'read admin' }, 'invalid_scope'],
      [{ resource: 'https://elsewhere.example.com/mcp' }, 'invalid_target'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [extra, error] of cases) {
      const res = await page(request(client.clientId, extra));
      expect(res.status, error).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:9/callback');
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('state')).toBe('s1');
      expect(back.searchParams.get('iss')).toBe(gateway.baseUrl);
    }
  });

  it('refuses a form without its CSRF cookie, and one keeping no scope, without issuing a code', async () => {
    const org = await newOrganisation();
    const client = await registerOAuthClient(gateway.baseUrl);
    const params = request(client.clientId, { redirect_uri: client.redirectUri });
    const forged = await fetch(`${gateway.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ...params,
        csrf: 'a'.repeat(43),
        api_token: org.admin.token,
        decision: 'approve',
        granted: 'read',
      }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    // None of the scopes asked kept: RFC 6749's invalid_scope, back to the client (not the bad-token page).
    const none = await authorizeOverHttp(gateway.baseUrl, client, { token: org.admin.token, granted: [] });
    expect(none.answer.status).toBe(302);
    expect(none.code).toBeNull();
    const refused = new URL(none.location!);
    expect(`${refused.origin}${refused.pathname}`).toBe(client.redirectUri);
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'None of the scopes asked for was kept on the approval page',
      state: 'xyz',
      iss: gateway.baseUrl,
    });
    const unasked = await authorizeOverHttp(gateway.baseUrl, client, {
      token: org.admin.token,
      scope: 'read',
      granted: ['delete'],
    });
    expect(new URL(unasked.location!).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('the token endpoint', () => {
  it('spends a code on any attempt: a wrong verifier is refused and the right one afterwards too', async () => {
    const { client, code, verifier } = await approved();
    const wrong = await exchange(client, code!, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The code_verifier does not match the code_challenge',
    });
    expect((await exchange(client, code!, verifier)).body.error).toBe('invalid_grant');
  });

  it('exchanges a code once, for its own client only, and answers no-store', async () => {
    const { client, code, verifier } = await approved();
    const other = await registerOAuthClient(gateway.baseUrl);
    expect((await exchange(other, code!, verifier)).body.error).toBe('invalid_grant');
    // The other client's attempt spent it.
    expect((await exchange(client, code!, verifier)).body.error).toBe('invalid_grant');

    const second = await approved();
    const tokens = await exchange(second.client, second.code!, second.verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get('cache-control')).toBe('no-store');
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
    expect((await exchange(second.client, second.code!, second.verifier)).body.error).toBe('invalid_grant');
  });

  it('refuses a refresh that widens the scope, an unknown grant type and a body that is not a form', async () => {
    const { client, code, verifier } = await approved('read');
    const tokens = (await exchange(client, code!, verifier)).body;
    const widen = await postForm(gateway.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: tokens.refresh_token,
      scope: 'read write',
    });
    expect(widen.body.error).toBe('invalid_scope');
    const narrowOk = await postForm(gateway.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(narrowOk.status).toBe(200);
    expect(
      (await postForm(gateway.baseUrl, '/oauth/token', { grant_type: 'password', client_id: client.clientId })).body.error,
    ).toBe('unsupported_grant_type');
    const json = await anon().post('/oauth/token', { grant_type: 'refresh_token' }, { token: null });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
  });
});

describe('revocation', () => {
  it('ends the grant by its access token; an unknown token is answered the same', async () => {
    const { client, code, verifier } = await approved();
    const tokens = (await exchange(client, code!, verifier)).body;
    const mcp = () =>
      apiClient(gateway.baseUrl, tokens.access_token).post(
        '/mcp',
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { headers: { Accept: 'application/json, text/event-stream' } },
      );
    expect((await mcp()).status).toBe(200);
    expect((await postForm(gateway.baseUrl, '/oauth/revoke', { token: tokens.access_token })).status).toBe(200);
    expect((await mcp()).status).toBe(401);
    const refresh = await postForm(gateway.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await postForm(gateway.baseUrl, '/oauth/revoke', { token: 'stk_ort_' + 'x'.repeat(43) })).status).toBe(200);
  });

  it('keeps an access token off every route but /mcp, in either token header', async () => {
    const { client, code, verifier } = await approved();
    const tokens = (await exchange(client, code!, verifier)).body;
    expect((await apiClient(gateway.baseUrl, tokens.access_token).get('/api/v1/me')).status).toBe(401);
    expect((await anon().get('/api/v1/me', { token: null, headers: { 'X-API-Token': tokens.access_token } })).status).toBe(401);
  });
});

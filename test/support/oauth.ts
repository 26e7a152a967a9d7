import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { BrowserContext } from 'playwright-core';
import { apiClient, type ApiResponse } from './api.ts';

/**
 * What an MCP client that connects with OAuth keeps (the SDK asks its provider for each): its
 * registration, its tokens, the PKCE verifier of the authorization under way, and the URL it was
 * sent to approve at (`authorizationUrl`), which the test opens in Chromium.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  constructor(redirectUrl: string, name = 'Test Assistant') {
    this.redirectUrl = redirectUrl;
    this.clientMetadata = {
      client_name: name,
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = () => 'state-123';
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.client = info;
  };
  tokens = () => this.stored;
  saveTokens = (tokens: OAuthTokens) => {
    this.stored = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
  /** What the SDK drops when the server refuses them (a revoked grant: `tokens`). */
  invalidateCredentials = (scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') => {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  };
}

/** A loopback HTTP receiver for the redirect back (RFC 8252): it records each callback's query. */
export async function startCallbackReceiver() {
  const received: URLSearchParams[] = [];
  const waiting: ((q: URLSearchParams) => void)[] = [];
  const server = http.createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    received.push(query);
    waiting.shift()?.(query);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You may close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    /** The next callback (or the last one if it already came and nobody took it). */
    next: (timeoutMs = 15_000) =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no callback')), timeoutMs);
        waiting.push((q) => {
          clearTimeout(timer);
          resolve(q);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Approves (or denies) on the authorization page in the browser as a person would: reads the
 * client's name and the scopes offered, unticks those not in `keep`, pastes the API token and
 * presses the button. Returns what the page showed.
 */
export async function answerInBrowser(
  context: BrowserContext,
  url: URL,
  options: { token: string; keep?: string[]; decision?: 'approve' | 'deny' },
) {
  const page = await context.newPage();
  try {
    const response = await page.goto(url.href);
    const status = response?.status();
    const clientName = await page.locator('#client-name').textContent();
    const offered = await page
      .locator('input[name=granted]')
      .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    for (const scope of offered) {
      if (options.keep && !options.keep.includes(scope)) await page.locator(`input[name=granted][value=${scope}]`).uncheck();
    }
    await page.locator('input[name=api_token]').fill(options.token);
    // The form's answer: a 302 back to the client, or the page again saying why not.
    const answered = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/oauth/authorize',
    );
    await page.locator(`button[value=${options.decision ?? 'approve'}]`).click();
    const answer = await answered;
    await page.waitForLoadState();
    // A redirect went back to the client: no page to read. Otherwise the page says why, in its alert,
    // waited for as long as a busy machine takes to render it.
    const redirected = answer.status() >= 300 && answer.status() < 400;
    const alert = redirected
      ? null
      : await page
          .locator('[role=alert]')
          .textContent({ timeout: 10_000 })
          .catch(() => null);
    return { status, clientName, offered, alert };
  } finally {
    await page.close();
  }
}

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(verifier = randomBytes(32).toString('base64url')) {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A response as the e2e helpers report it (`x-db-calls` counted by the local gateway). */
async function observed(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML or empty
  }
  return {
    status: res.status,
    headers: res.headers,
    body,
    text,
    dbCalls: Number(res.headers.get('x-db-calls') ?? -1),
    roundTrips: Number(res.headers.get('x-db-round-trips') ?? -1),
  };
}

/** Registers a public client with one loopback redirect URI. */
export async function registerOAuthClient(baseUrl: string, redirectUri = 'http://127.0.0.1:9/callback', name = 'Budget client') {
  const res = await apiClient(baseUrl).post(
    '/oauth/register',
    { client_name: name, redirect_uris: [redirectUri] },
    { token: null },
  );
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  return { clientId: res.body.client_id as string, redirectUri, registration: res };
}

/**
 * The authorization page over plain HTTP, as a browser without script would: GET it, take its
 * CSRF field and cookie, POST the form with the API token. The answer is not followed.
 */
export async function authorizeOverHttp(
  baseUrl: string,
  client: { clientId: string; redirectUri: string },
  options: { token: string; scope?: string; granted?: string[]; decision?: 'approve' | 'deny'; challenge?: string },
) {
  const pkce = pkcePair();
  const params = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: options.challenge ?? pkce.challenge,
    code_challenge_method: 'S256',
    scope: options.scope ?? 'read write',
    state: 'xyz',
  };
  const page = await observed(await fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams(params)}`));
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const form = new URLSearchParams({ ...params, csrf, api_token: options.token, decision: options.decision ?? 'approve' });
  for (const scope of options.granted ?? params.scope.split(' ')) form.append('granted', scope);
  const answer = await observed(
    await fetch(`${baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: form.toString(),
    }),
  );
  const location = answer.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  return { page, answer, code, verifier: pkce.verifier, location };
}

/** `POST /oauth/token` (or `/oauth/revoke`) with a form body, through the contract-checked client. */
export const postForm = (baseUrl: string, path: '/oauth/token' | '/oauth/revoke', fields: Record<string, string>) =>
  apiClient(baseUrl).request('POST', path, {
    raw: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    token: null,
  });

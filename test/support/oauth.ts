import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { BrowserContext } from 'playwright-core';

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
    await answered;
    await page.waitForLoadState();
    const alert = await page
      .locator('[role=alert]')
      .textContent({ timeout: 200 })
      .catch(() => null);
    return { status, clientName, offered, alert };
  } finally {
    await page.close();
  }
}

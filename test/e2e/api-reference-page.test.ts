import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { assetPath, referenceAssets } from '../../lib/api-reference/assets.ts';
import { freePort } from '../../tools/local/dynamodb.ts';
import { repoRoot } from '../../infra/paths.ts';
import { routes } from '../../lib/routes.ts';
import { apiClient } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { npmStart, READY, type Service, stop } from '../support/npm-start.ts';

/**
 * The API reference page in a real browser: headless Chromium (Debian's package) loads `/api-docs`
 * from `npm start` and must list every operation of the route table, loading nothing from anywhere
 * but the service. The screenshot is left in test-results/ for people to look at.
 */
const screenshotDir = join(repoRoot, 'test-results');
const operation = (method: string, path: string, id: string) => `${method} ${path} ${id}`;
const everyOperation = routes.map((r) => operation(r.method, r.path, r.operation.id)).sort();

let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let service: Service | undefined;
let origin: string;

beforeAll(async () => {
  // First, so that a missing browser fails the file at once, with its message.
  browser = await launchChromium();
  // The suite's DynamoDB Local and table: the page needs none, the service wants one to start.
  service = npmStart({
    PORT: String(await freePort()),
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TABLE_NAME: inject('tableName'),
  });
  origin = new URL((await service.waitFor(READY))[1]!).origin;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (service) await stop(service);
});

interface Visit {
  page: Page;
  /** Paths requested from the service, in order. */
  requested: string[];
  /** Any URL the page asked for elsewhere (blocked). */
  outside: string[];
  /** Console errors and uncaught exceptions of the page. */
  errors: string[];
}

/**
 * Opens `url` in a new page of `context`, blocking and recording every request that leaves
 * `origin`. `rewrite` maps a requested path to the service's (a stage prefix, say).
 */
async function visit(context: BrowserContext, url: string, rewrite: (path: string) => string = (p) => p): Promise<Visit> {
  const page = await context.newPage();
  const visit: Visit = { page, requested: [], outside: [], errors: [] };
  await page.route('**/*', async (route) => {
    const requested = new URL(route.request().url());
    if (requested.origin !== origin) {
      visit.outside.push(requested.href);
      return route.abort('blockedbyclient');
    }
    const path = rewrite(requested.pathname);
    visit.requested.push(path);
    return path === requested.pathname
      ? route.continue()
      : route.fulfill({ response: await route.fetch({ url: origin + path }) });
  });
  page.on('console', (message) => {
    if (message.type() === 'error') visit.errors.push(message.text());
  });
  page.on('pageerror', (error) => visit.errors.push(error.message));
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  // Swagger UI renders its operations once it has the document (the first of them, at least).
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
  return visit;
}

/**
 * Method, path and operationId of every operation the page shows. Swagger UI renders a list of 150
 * tags and operations or more only where the window is (a window virtualizer): the page is read
 * from top to bottom, a window's height at a time, each operation counted once.
 */
async function listedOperations(page: Page): Promise<string[]> {
  const seen = new Set<string>();
  for (let y = 0, last = -1; ; y += 600) {
    await page.$eval('html', (html, to) => html.scrollTo(0, to), y);
    await page.waitForTimeout(50);
    for (const op of await renderedOperations(page)) seen.add(op);
    const height = await page.$eval('html', (html) => html.scrollHeight);
    if (y >= height && height === last) break;
    last = height;
  }
  await page.$eval('html', (html) => html.scrollTo(0, 0));
  return [...seen];
}

/** Scrolls down a window's height at a time until `selector` is rendered. */
async function scrollUntil(page: Page, selector: string): Promise<void> {
  for (let y = 0; y < 1_000_000 && (await page.locator(selector).count()) === 0; y += 600) {
    await page.$eval('html', (html, to) => html.scrollTo(0, to), y);
    await page.waitForTimeout(50);
  }
}

/** The operations rendered now. */
function renderedOperations(page: Page): Promise<string[]> {
  return page.$$eval('.opblock', (blocks) =>
    blocks.map((block) =>
      [
        block.querySelector('.opblock-summary-method')?.textContent?.trim(),
        block.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
        block.querySelector('.opblock-summary-operation-id')?.textContent?.trim(),
      ].join(' '),
    ),
  );
}

const pageLoads = ['/api-docs', ...referenceAssets.map(assetPath), '/api-docs/v1/swagger.json'];

describe('the API reference page in headless Chromium', () => {
  it('lists every operation of the route table, opens one to try it, loads only from the service, and leaves a screenshot', async () => {
    const { page, requested, outside, errors } = await visit(browser!.context, `${origin}/api-docs`);
    const listed = (await listedOperations(page)).sort();
    // Interactive: an operation opens to its parameters and a "Try it out" button (scrolled to:
    // the page renders only what is near the window).
    await scrollUntil(page, '#operations-Projects-getProject');
    await page.click('#operations-Projects-getProject .opblock-summary');
    await page.waitForSelector('#operations-Projects-getProject .try-out__btn', { timeout: 10_000 });
    mkdirSync(screenshotDir, { recursive: true });
    const screenshot = join(screenshotDir, 'api-reference.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`API reference page screenshot: ${relative(process.cwd(), screenshot)}`);

    expect(listed).toEqual(everyOperation);
    expect(outside, 'requests outside the service').toEqual([]);
    expect([...new Set(requested)].sort()).toEqual([...pageLoads].sort());
    expect(errors).toEqual([]);
    // Served by `npm start` itself (it logs each request).
    expect(service!.output()).toMatch(/^GET \/api-docs 200 /m);
  }, 90_000);

  it('works under an API Gateway stage path too, and offers that deployment as the server to try requests on', async () => {
    const stage = '/prod';
    const { page, requested, outside, errors } = await visit(browser!.context, `${origin}${stage}/api-docs`, (path) =>
      path.startsWith(`${stage}/`) ? path.slice(stage.length) : `/not-under-the-stage${path}`,
    );
    expect((await listedOperations(page)).sort()).toEqual(everyOperation);
    expect([...new Set(requested)].sort()).toEqual([...pageLoads].sort());
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    const servers = await page.$$eval('.servers select option', (options) => options.map((o) => o.getAttribute('value')));
    expect(servers[0]).toBe(`${origin}${stage}`);
  }, 90_000);
});

describe('GET /api-docs over HTTP', () => {
  it('answers HTML without a token, under a policy that keeps the page to its own origin, cacheable by ETag', async () => {
    const client = apiClient(origin);
    const res = await client.get('/api-docs', { token: null, headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'(;|$)/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const again = await client.get('/api-docs', { token: null, headers: { 'If-None-Match': res.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });
});

import { referenceAssets } from './assets.ts';

/**
 * The HTML of `GET /api-docs`: an empty page that loads Swagger UI and its start-up script from
 * `/api-docs/assets/` (lib/api-reference/assets.ts, in the list's order); the script fetches the
 * OpenAPI document and renders it. Every URL is relative to the page, so that it also works under
 * an API Gateway stage (`https://.../prod/api-docs`).
 */
export const referencePage = [
  '<!doctype html>',
  '<html lang="en">',
  '<head>',
  '<meta charset="utf-8">',
  '<meta name="viewport" content="width=device-width, initial-scale=1">',
  '<title>Sprint Ticketing Service: API reference</title>',
  // No favicon request: the page asks its origin for nothing it does not serve.
  '<link rel="icon" href="data:,">',
  ...referenceAssets
    .filter((a) => a.name.endsWith('.css'))
    .map((a) => `<link rel="stylesheet" href="api-docs/assets/${a.name}">`),
  '</head>',
  '<body>',
  '<div id="swagger-ui"></div>',
  '<noscript>This reference needs JavaScript. The OpenAPI document itself is at <a href="api-docs/v1/swagger.yaml">api-docs/v1/swagger.yaml</a>.</noscript>',
  ...referenceAssets.filter((a) => a.name.endsWith('.js')).map((a) => `<script src="api-docs/assets/${a.name}"></script>`),
  '</body>',
  '</html>',
  '',
].join('\n');

/**
 * What the page may load and call: its own origin only (scripts, styles, the document, and "Try it
 * out" requests), images also as `data:` URLs (Swagger UI's icons). No inline script.
 */
export const referencePagePolicy = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { bundledAssetFolder, referenceAssets } from './assets.ts';
import { referencePage } from './page.ts';

/** A text file the reference serves, with its validator. */
export interface ReferenceFile {
  body: string;
  contentType: string;
  etag: string;
}

const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

/**
 * Where the assets are read from, decided on first use. In Lambda the build copied them into a
 * folder beside the bundle (infra/bundling.ts: functionFiles); run from source (`npm start`, the
 * tests) this module has no such folder beside it, and they are read where they live in the
 * repository.
 */
let assetRoot: { url: URL; bundled: boolean } | undefined;
function assetUrl(name: string, source: string): URL {
  if (!assetRoot) {
    const besideBundle = new URL(`./${bundledAssetFolder}/`, import.meta.url);
    assetRoot = existsSync(besideBundle)
      ? { url: besideBundle, bundled: true }
      : { url: new URL('../../', import.meta.url), bundled: false };
  }
  return new URL(assetRoot.bundled ? name : source, assetRoot.url);
}

const files = new Map<string, ReferenceFile>();

/**
 * The page (`/api-docs`) or one of its assets (`/api-docs/assets/<name>`), by API Gateway resource
 * path; undefined for any other path. An asset is read from disk on its first request and kept:
 * Swagger UI is ~1.7 MB of script, which the function's module graph never holds, so its init
 * stays that of a small bundle.
 */
export function referenceFile(resource: string): ReferenceFile | undefined {
  const cached = files.get(resource);
  if (cached) return cached;
  let file: ReferenceFile | undefined;
  if (resource === '/api-docs') {
    file = { body: referencePage, contentType: 'text/html; charset=utf-8', etag: etagOf(referencePage) };
  } else {
    const asset = referenceAssets.find((a) => resource === `/api-docs/assets/${a.name}`);
    if (!asset) return undefined;
    const body = readFileSync(assetUrl(asset.name, asset.source), 'utf8');
    file = { body, contentType: asset.contentType, etag: etagOf(body) };
  }
  files.set(resource, file);
  return file;
}

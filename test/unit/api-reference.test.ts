import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionFiles } from '../../infra/bundling.ts';
import { assetPath, bundledAssetFolder, referenceAssets } from '../../lib/api-reference/assets.ts';
import { referencePage } from '../../lib/api-reference/page.ts';
import { repoRoot } from '../../infra/paths.ts';
import { routes } from '../../lib/routes.ts';

const ENTRY = 'functions/api-reference.ts';

describe('the API reference page', () => {
  it('has a row of the route table for the page and for each of its assets, and none it cannot serve', () => {
    const rows = routes.filter((r) => r.handler === ENTRY);
    expect(rows.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      ['/api-docs', ...referenceAssets.map(assetPath)].map((p) => `GET ${p}`).sort(),
    );
    expect(rows.every((r) => !r.auth)).toBe(true);
    for (const asset of referenceAssets) {
      const row = rows.find((r) => r.path === assetPath(asset))!;
      expect(asset.contentType.split(';')[0], asset.name).toBe(row.operation.success.mediaType);
    }
  });

  it('loads every asset, each from the service, in the list’s order', () => {
    const loaded = [...referencePage.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded.filter((url) => url?.startsWith('api-docs/assets/'))).toEqual(
      referenceAssets
        .map((a) => `api-docs/assets/${a.name}`)
        .sort((a, b) => Number(a.endsWith('.js')) - Number(b.endsWith('.js'))),
    );
    // Nothing absolute: relative URLs keep working under an API Gateway stage path.
    expect(loaded.filter((url) => /^(\/|[a-z]+:\/\/)/.test(url ?? ''))).toEqual([]);
  });

  it('ships each asset beside the function bundle, from a file that exists', () => {
    expect(functionFiles[ENTRY]).toEqual(referenceAssets.map((a) => ({ from: a.source, to: `${bundledAssetFolder}/${a.name}` })));
    for (const asset of referenceAssets) expect(existsSync(resolve(repoRoot, asset.source)), asset.source).toBe(true);
  });
});

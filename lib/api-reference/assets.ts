/**
 * The files of the API reference page (`GET /api-docs`): Swagger UI's script and style sheet from
 * the `swagger-ui-dist` package, and the page's own start-up script. Plain data: the CDK stack
 * reads the list to copy the files beside the function's bundle (infra/bundling.ts:
 * functionFiles), and the handler reads them from there (lib/api-reference/files.ts).
 */

/** A file the page loads from `/api-docs/assets/<name>`. */
export interface ReferenceAsset {
  /** File name, in the URL and in the bundle's asset folder. */
  name: string;
  /** Where the file comes from, relative to the repository root. */
  source: string;
  contentType: string;
}

const javascript = 'text/javascript; charset=utf-8';

export const referenceAssets: readonly ReferenceAsset[] = [
  { name: 'swagger-ui.css', source: 'node_modules/swagger-ui-dist/swagger-ui.css', contentType: 'text/css; charset=utf-8' },
  { name: 'swagger-ui-bundle.js', source: 'node_modules/swagger-ui-dist/swagger-ui-bundle.js', contentType: javascript },
  { name: 'api-reference.js', source: 'lib/api-reference/initializer.js', contentType: javascript },
];

/** The folder beside a function's bundle (`index.mjs`) that holds the assets in Lambda. */
export const bundledAssetFolder = 'api-docs-assets';

/** URL path of an asset (absolute; the page itself refers to it relatively, see `page.ts`). */
export const assetPath = (asset: ReferenceAsset) => `/api-docs/assets/${asset.name}`;

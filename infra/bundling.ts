/**
 * The esbuild settings every Lambda bundle is built with: the CDK stack hands them to
 * `NodejsFunction`, and `tools/bench/bundles.ts` builds its measured bundles with the very same ones.
 * Plain data on purpose: the bench imports this file without loading aws-cdk-lib.
 */
import { bundledAssetFolder, referenceAssets } from '../lib/api-reference/assets.ts';

export const bundling = {
  platform: 'node',
  /** The Lambda runtime's Node.js (`nodejs24.x`). */
  target: 'node24',
  format: 'esm',
  /** Lambda loads `index.mjs` as an ES module. */
  outExtension: '.mjs',
  minify: true,
  /**
   * A separate `.map` beside the bundle; `inject`'s module maps stack traces through it when one is
   * first formatted (Node's `--enable-source-maps` would read it at every cold start instead).
   */
  sourcemap: true,
  /** The bundle stays small; the map points at paths in the repository instead of carrying them. */
  sourcesContent: false,
  /** Prefer packages' ES module builds: they tree-shake (the AWS SDK ships both). */
  mainFields: ['module', 'main'],
  /**
   * CommonJS dependencies bundled into an ES module still call `require` for Node built-ins;
   * an ES module has none, so the bundle makes one.
   */
  banner: "import{createRequire as __createRequire}from'node:module';const require=__createRequire(import.meta.url);",
  /**
   * Modules every bundle runs first, paths relative to the repository root: stack traces mapped to
   * the sources on first use (infra/inject/source-maps.js).
   */
  inject: ['infra/inject/source-maps.js'],
  /** Nothing is taken from the runtime: the AWS SDK is bundled, pinned by package-lock.json. */
  external: [] as string[],
  /**
   * Module replacements, paths relative to the repository root. The SDK's default credential chain
   * becomes the environment provider, the only link of it Lambda ever uses (infra/shims/lambda-credentials.ts);
   * the DynamoDB client's endpoint-cache LRU becomes one on a Map (infra/shims/lru-cache.js: 7 KB less
   * to load in every bundle); Powertools' JMESPath interpreter becomes the field paths that the
   * idempotency records use (infra/shims/jmespath-paths.ts: 23 KB and 2 to 3 ms of init less in every
   * bundle that honours `Idempotency-Key`; no other bundle imports it).
   */
  alias: {
    '@aws-sdk/credential-provider-node': 'infra/shims/lambda-credentials.ts',
    'mnemonist/lru-cache': 'infra/shims/lru-cache.js',
    '@aws-lambda-powertools/jmespath': 'infra/shims/jmespath-paths.ts',
    '@aws-lambda-powertools/jmespath/functions': 'infra/shims/jmespath-paths.ts',
  } as Record<string, string>,
} as const;

/**
 * Module replacements every function's bundle takes on top of `bundling.alias` (the init-time
 * yardstick, tools/bench/baseline.ts, is built without them: it stays the document client as the
 * SDK ships it, tools/bench/README.md). The SDK's event-stream codec, which no DynamoDB operation
 * (nor SQS, the stream consumers' failure queue) uses, becomes a module that fails loudly if ever
 * reached (infra/shims/no-event-streams.js): the SDK's protocol layer loads it with `import()`, and
 * in a one-file bundle that keeps 13 KB of codec and wraps the SDK modules it shares in lazy
 * initialisers, about 4 to 9 ms of every function's init.
 */
export const serviceAlias: Record<string, string> = {
  '@smithy/core/event-streams': 'infra/shims/no-event-streams.js',
};

/**
 * Module replacements for one function only (by handler module), on top of `bundling.alias` and
 * `serviceAlias`, so that no other bundle can lose something it uses. `/mcp`: the MCP SDK's JSON
 * Schema validator (ajv) and zod 3 support, which this server never runs
 * (infra/shims/unused-sdk-dependencies.ts), and the DynamoDB client's index, narrowed to what the
 * bundle uses (infra/shims/dynamodb-client.js). The stream consumers that load their code with
 * `import()` (`functions/cascade.ts`, its data layer; `functions/import-jobs.ts`, the job runner;
 * `functions/github-events.ts`, the GitHub deliveries' use cases): the same narrowed DynamoDB client
 * index (about 45 KB less).
 */
export const functionAlias: Record<string, Record<string, string>> = {
  'functions/mcp.ts': {
    ...Object.fromEntries(
      ['ajv', 'ajv-formats', 'zod/v3', 'zod-to-json-schema'].map((pkg) => [pkg, 'infra/shims/unused-sdk-dependencies.ts']),
    ),
    '@aws-sdk/client-dynamodb': 'infra/shims/dynamodb-client.js',
  },
  'functions/cascade.ts': {
    '@aws-sdk/client-dynamodb': 'infra/shims/dynamodb-client.js',
  },
  'functions/import-jobs.ts': {
    '@aws-sdk/client-dynamodb': 'infra/shims/dynamodb-client.js',
  },
  'functions/github-events.ts': {
    '@aws-sdk/client-dynamodb': 'infra/shims/dynamodb-client.js',
  },
};

/**
 * Functions whose bundle is split where their code loads code with `import()` (esbuild's code
 * splitting: `index.mjs`, and beside it `chunks/*.mjs` that it imports or loads on use), rather than
 * one file in which every module reached from an `import()` still ships, wrapped. `/mcp`: the entry
 * holds the shared HTTP stack and the MCP refusals; the MCP server (the SDK, zod, the tool list as
 * data) is a chunk loaded by the first MCP message, and what a call runs (every tool, the services,
 * the data layer and the DynamoDB client, lib/mcp/domain.ts) another, loaded by the first call.
 * The import jobs' consumer: its entry holds the logger; the import code is a chunk loaded by the
 * first batch (functions/import-jobs.ts).
 */
export const splitEntries: readonly string[] = ['functions/mcp.ts', 'functions/import-jobs.ts'];

/** Where a split bundle's chunks go, under its folder. */
export const chunkNames = 'chunks/[name]-[hash]';

/**
 * The esbuild command line that builds a split bundle into `outDir` with the same settings as
 * every bundle (the CDK stack runs it after its own esbuild run, infra/constructs/service-function.ts;
 * `tools/bench/bundles.ts` builds it with the same options through esbuild's API). Paths absolute.
 */
export function splitBuildArgs(entry: string, repo: string, outDir: string): string[] {
  return [
    `${repo}/${entry}`,
    '--bundle',
    '--splitting',
    `--outdir=${outDir}`,
    '--entry-names=index',
    `--chunk-names=${chunkNames}`,
    `--out-extension:.js=${bundling.outExtension}`,
    `--platform=${bundling.platform}`,
    `--target=${bundling.target}`,
    `--format=${bundling.format}`,
    ...(bundling.minify ? ['--minify'] : []),
    ...(bundling.sourcemap ? ['--sourcemap'] : []),
    `--sources-content=${bundling.sourcesContent}`,
    `--main-fields=${bundling.mainFields.join(',')}`,
    `--banner:js=${bundling.banner}`,
    ...bundling.inject.map((file) => `--inject:${repo}/${file}`),
    ...bundling.external.map((e) => `--external:${e}`),
    ...Object.entries(aliasFor(entry)).map(([from, to]) => `--alias:${from}=${repo}/${to}`),
    '--log-level=warning',
  ];
}

/** Every module replacement of a function's bundle; paths relative to the repository root. */
export function aliasFor(entry: string): Record<string, string> {
  return { ...bundling.alias, ...serviceAlias, ...functionAlias[entry] };
}

/** A file copied into a function's bundle folder: `from` relative to the repository root, `to` to the folder. */
export interface BundledFile {
  from: string;
  to: string;
}

/**
 * Files that a function reads at run time, copied beside its bundle (by handler module) rather
 * than bundled into it. `/api-docs`: Swagger UI's ~1.9 MB of script and styles, which the handler
 * reads on first request (lib/api-reference/files.ts), so that its module init stays small.
 */
export const functionFiles: Record<string, BundledFile[]> = {
  'functions/api-reference.ts': referenceAssets.map((a) => ({ from: a.source, to: `${bundledAssetFolder}/${a.name}` })),
};

/** Environment every function gets beside its own. */
export const runtimeEnvironment = {
  POWERTOOLS_SERVICE_NAME: 'sprint-ticketing',
  POWERTOOLS_LOG_LEVEL: 'INFO',
} as const;

// The boundaries of the code (docs/architecture.md), checked by dependency-cruiser in `npm test`
// (`npm run boundaries`). `layers` is the one table: each layer of lib/ and the layers it sits on
// directly; a layer may import the layers below it (what it sits on, and what those sit on), never
// one above it or beside it. docs/architecture.md shows the same table (test/unit/boundaries.test.ts).

/** Each layer: the path it holds and the layers it sits on directly. */
const layers = {
  vocabulary: { path: 'lib/vocabulary/', on: [] },
  schemas: { path: 'lib/schemas/', on: ['vocabulary'] },
  model: { path: 'lib/model/', on: ['schemas'] },
  context: { path: 'lib/context/', on: ['model'] },
  config: { path: 'lib/config.ts', on: ['model'] },
  openapi: { path: 'lib/openapi/', on: [] },
  'api-reference': { path: 'lib/api-reference/', on: [] },
  aws: { path: 'lib/aws/', on: ['config'] },
  'db-core': { path: 'lib/db/core/', on: ['config', 'context'] },
  'db-organisation': { path: 'lib/db/organisation/', on: ['db-core'] },
  'db-imports': { path: 'lib/db/imports/', on: ['db-core'] },
  'db-webhooks': { path: 'lib/db/webhooks/', on: ['db-organisation'] },
  'db-projects': { path: 'lib/db/projects/', on: ['db-organisation', 'db-imports'] },
  'db-issues': { path: 'lib/db/issues/', on: ['db-projects'] },
  'db-comments': { path: 'lib/db/comments/', on: ['db-issues'] },
  'db-attachments': { path: 'lib/db/attachments/', on: ['db-comments'] },
  'db-github': { path: 'lib/db/github/', on: ['db-issues'] },
  'db-cascades': { path: 'lib/db/cascades/', on: ['db-attachments', 'db-github'] },
  jobs: { path: 'lib/jobs/', on: ['db-cascades', 'aws'] },
  resources: { path: 'lib/resources/', on: ['db-cascades', 'db-webhooks'] },
  services: { path: 'lib/services/', on: ['jobs', 'resources'] },
  feed: { path: 'lib/feed/', on: ['services'] },
  webhooks: { path: 'lib/webhooks/', on: ['feed'] },
  http: { path: 'lib/http/', on: ['services', 'openapi'] },
  mcp: { path: 'lib/mcp/', on: ['http'] },
  oauth: { path: 'lib/oauth/', on: ['http'] },
  migrations: { path: 'lib/migrations/', on: ['http'] },
  routes: { path: 'lib/routes.ts', on: ['schemas'] },
  functions: { path: 'functions/', on: ['mcp', 'oauth', 'migrations', 'webhooks', 'api-reference'] },
};

/** The layers `name` may import: those it sits on, and theirs, down to the bottom. */
function below(name, seen = new Set()) {
  for (const next of layers[name].on) {
    if (seen.has(next)) continue;
    seen.add(next);
    below(next, seen);
  }
  return seen;
}

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathOf = (name) => `^${escaped(layers[name].path)}${layers[name].path.endsWith('/') ? '' : '$'}`;
const ownAndBelow = (name) => [name, ...below(name)];

/** The code that runs in AWS and on `npm start`: everything but the CDK app, the tools and the tests. */
const runtime = '^(lib|functions)/';

/** Where the AWS SDK may be imported: the data layer, the AWS edges (S3, KMS), the webhooks' delivery edge, the migration's Lambda call. */
const awsSdkEdges = ['^lib/db/', '^lib/aws/', '^lib/webhooks/(queue|post)\\.ts$', '^lib/migrations/continue\\.ts$'];

module.exports = {
  forbidden: [
    ...Object.keys(layers).map((name) => ({
      name: `layer-${name}`,
      comment: `${layers[name].path} may import only ${[...below(name)].join(', ') || 'nothing of lib/'} (docs/architecture.md)`,
      severity: 'error',
      from: { path: pathOf(name) },
      to: { path: '^(lib|functions)/', pathNot: ownAndBelow(name).map(pathOf) },
    })),
    {
      name: 'no-circular',
      comment: 'A module reaches itself again through its imports: one of them runs back up.',
      severity: 'error',
      from: { path: '^(lib|functions|tools|infra)/' },
      to: { circular: true },
    },
    {
      name: 'runtime-stays-out-of-tools',
      comment: 'The runtime code imports neither the CDK app, the tools nor the tests.',
      severity: 'error',
      from: { path: runtime },
      to: { path: '^(infra|tools|test)/' },
    },
    {
      name: 'no-cdk-at-runtime',
      comment: 'Runtime code never imports aws-cdk-lib or constructs (they belong to infra/).',
      severity: 'error',
      from: { path: runtime },
      to: { path: 'node_modules/(aws-cdk-lib|constructs|cdk-nag)/' },
    },
    {
      name: 'keys-stay-in-db',
      comment: 'Only lib/db knows the keys (lib/db/core/keys.ts); the tools and the tests write items as a seed would.',
      severity: 'error',
      from: { path: '^(lib|functions|infra)/', pathNot: '^lib/db/' },
      to: { path: '^lib/db/core/keys\\.ts$' },
    },
    {
      name: 'table-stays-in-db',
      comment:
        "Above lib/db, code reaches the table through lib/db's named reads and writes: never its client or its raw queries.",
      severity: 'error',
      from: { path: '^(lib|functions)/', pathNot: '^lib/db/' },
      to: { path: '^lib/db/core/(client|query)\\.ts$' },
    },
    {
      name: 'aws-sdk-at-the-edges',
      comment: 'The AWS SDK is imported by the data layer, the webhooks delivery edge and the migration Lambda call only.',
      severity: 'error',
      from: { path: runtime, pathNot: awsSdkEdges },
      to: { path: 'node_modules/@(aws-sdk|smithy)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|\\.data|\\.tmp)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type imported from above is a dependency on that layer too.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
  },
};

// The table itself, for test/unit/boundaries.test.ts (not enumerable: the configuration's schema allows no other key).
Object.defineProperty(module.exports, 'layers', { value: layers, enumerable: false });

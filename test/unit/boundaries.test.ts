import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const config = join(root, '.dependency-cruiser.cjs');
const cruiser = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const run = promisify(execFile);

interface Layer {
  path: string;
  on: string[];
}
const { layers } = createRequire(import.meta.url)(config) as { layers: Record<string, Layer> };

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The violations dependency-cruiser finds in `dirs` of `cwd` with the project's configuration. */
async function cruise(cwd: string, dirs: string[]): Promise<Violation[]> {
  const out = await run(process.execPath, [cruiser, ...dirs, '--config', config, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** Each violation as `rule: from -> to`, a package named from its node_modules on (the fixture links the project's). */
const found = (violations: Violation[]) =>
  violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*?(node_modules\/)/, '$1')}`).sort();

// The project itself is checked by `npm run boundaries`, a step of `npm test` before vitest.
describe('the boundary check (.dependency-cruiser.cjs)', () => {
  let fixture: string;

  beforeAll(async () => {
    // A small tree laid out like the project's, with one of each kind of violation planted.
    fixture = await mkdtemp(join(tmpdir(), 'boundaries-'));
    const files: Record<string, string> = {
      'lib/vocabulary/words.ts': "export const word = 'open';\n",
      'lib/model/rules.ts': "import { word } from '../vocabulary/words.ts';\nexport const rule = word;\n",
      'lib/db/core/keys.ts': "export const key = 'PK';\n",
      'lib/db/issues/items.ts':
        "import { key } from '../core/keys.ts';\nimport { rule } from '../../model/rules.ts';\nexport const item = key + rule;\n",
      'lib/db/core/client.ts': 'export const client = {};\n',
      'lib/jobs/sweep.ts': "import { item } from '../db/issues/items.ts';\nexport const sweep = item;\n",
      'lib/services/use-case.ts': "import { sweep } from '../jobs/sweep.ts';\nexport const useCase = sweep;\n",
      // Planted: an upward import (the model reads the data layer).
      'lib/model/upward.ts': "import { item } from '../db/issues/items.ts';\nexport const up = item;\n",
      // Planted: lib/db's core reaching an aggregate, and an aggregate reaching a job above it.
      'lib/db/core/reach.ts': "import { item } from '../issues/items.ts';\nexport const reach = item;\n",
      'lib/db/issues/reach.ts': "import { sweep } from '../../jobs/sweep.ts';\nexport const reach = sweep;\n",
      // Planted: a job reaching the table's client instead of lib/db's named reads and writes.
      'lib/jobs/raw.ts': "import { client } from '../db/core/client.ts';\nexport const raw = client;\n",
      // Planted: a circle between two modules of one layer.
      'lib/model/ping.ts': "import { pong } from './pong.ts';\nexport const ping = () => pong;\n",
      'lib/model/pong.ts': "import { ping } from './ping.ts';\nexport const pong = () => ping;\n",
      // Planted: a key built outside lib/db.
      'lib/services/raw-key.ts': "import { key } from '../db/core/keys.ts';\nexport const raw = key;\n",
      // Planted: the SDK above the data layer.
      'lib/feed/wire.ts': "import { unmarshall } from '@aws-sdk/util-dynamodb';\nexport const wire = unmarshall;\n",
      // Planted: a handler that imports the route table (it would bundle every route's schema).
      'functions/handler.ts':
        "import { useCase } from '../lib/services/use-case.ts';\nimport { table } from '../lib/routes.ts';\nexport const handler = [useCase, table];\n",
      'lib/routes.ts': 'export const table = [];\n',
      'tsconfig.json': await readFile(join(root, 'tsconfig.json'), 'utf8'),
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(fixture, path)), { recursive: true });
      await writeFile(join(fixture, path), text);
    }
    await symlink(join(root, 'node_modules'), join(fixture, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    await rm(fixture, { recursive: true, force: true });
  });

  it('fails on a planted upward import (also inside lib/db), a circle, a key or the table client outside lib/db, the SDK above it, and a handler importing the route table', async () => {
    expect(found(await cruise(fixture, ['lib', 'functions']))).toEqual([
      'aws-sdk-at-the-edges: lib/feed/wire.ts -> node_modules/@aws-sdk/util-dynamodb/dist-cjs/index.js',
      'keys-stay-in-db: lib/services/raw-key.ts -> lib/db/core/keys.ts',
      'layer-db-core: lib/db/core/reach.ts -> lib/db/issues/items.ts',
      'layer-db-issues: lib/db/issues/reach.ts -> lib/jobs/sweep.ts',
      'layer-functions: functions/handler.ts -> lib/routes.ts',
      'layer-model: lib/model/upward.ts -> lib/db/issues/items.ts',
      'no-circular: lib/model/ping.ts -> lib/model/pong.ts',
      'table-stays-in-db: lib/jobs/raw.ts -> lib/db/core/client.ts',
    ]);
  });
});

describe('docs/architecture.md', () => {
  it('states each layer and what it sits on as the boundary check does', async () => {
    const doc = await readFile(join(root, 'docs/architecture.md'), 'utf8');
    // Rows of the table "What each layer sits on": | `path` | what it holds | `a`, `b` |
    const rows = new Map<string, string[]>();
    for (const line of doc.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const path = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
      if (!path || cells.length < 5) continue;
      rows.set(path, [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).sort());
    }
    const expected = new Map(
      Object.values(layers).map((layer) => [layer.path, layer.on.map((n) => layers[n]?.path ?? n).sort()]),
    );
    expect(rows).toEqual(expected);
  });
});

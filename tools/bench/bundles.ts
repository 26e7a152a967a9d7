/**
 * `npm run bench`: the Lambda bundle budget. Builds every function's bundle with the CDK stack's
 * esbuild settings (infra/bundling.ts), then, for each, copies it alone into an empty folder and
 * times its module init (the `import` of the bundle) in a fresh `node` process, interleaving the
 * bundles round after round so that a busy machine slows them all alike. The yardstick is a bundle
 * holding only a DynamoDB document client (tools/bench/baseline.ts), measured the same way.
 *
 * Init is measured as the CPU time the process spends in the import, and the budget takes the
 * least of the rounds (the median and the wall time are printed too): on a shared machine wall time
 * mostly measures waiting for a core, and other work only ever adds CPU time (caches, a busy
 * sibling core), never takes any away. On Lambda, where the function has its CPU share to itself,
 * the figures are close.
 *
 * Budget: every bundle under 500 KB (a split bundle: what init loads, and each chunk loaded later), and
 * its init CPU at most 1.3 times the yardstick's.
 * Prints a Markdown table (the one in tools/bench/README.md) and exits 1 when a bundle is over budget.
 *
 *   npm run bench [-- --rounds 30]
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { aliasFor, bundling, chunkNames, runtimeEnvironment, splitEntries } from '../../infra/bundling.ts';
import { allFunctionEntries, functionId } from '../../infra/functions.ts';
import { repoRoot } from '../../infra/paths.ts';

/**
 * Size and module init against the yardstick: every bundle under 500 KB (a split bundle: what its
 * init loads, and each chunk it loads later), its init CPU at most 1.3 times the yardstick's
 * (tools/bench/README.md has the figures). No bundle has an exception.
 */
export const budget = { maxBytes: 500 * 1024, maxInitRatio: 1.3 } as const;

/** The yardstick: only a DynamoDB document client. */
export const baselineEntry = 'tools/bench/baseline.ts';

export interface Bundle {
  name: string;
  entry: string;
  /** `index.mjs`, which Lambda imports. */
  file: string;
  mapFile: string;
  /** What the module init loads: `index.mjs`, and for a split bundle the chunks it imports. */
  bytes: number;
  mapBytes: number;
  /** A split bundle's chunks loaded with `import()` on use, by path relative to its folder (none for one file). */
  lazyChunks: { path: string; bytes: number }[];
}

/**
 * A function's module replacements (infra/bundling.ts: `aliasFor`); the yardstick's are the base
 * ones only (`bundling.alias`), as when the budget was set: the trims of the SDK that only the
 * service's bundles carry (`serviceAlias`) count as the service's, not as the yardstick's.
 */
const aliasOf = (entry: string) => (entry === baselineEntry ? bundling.alias : aliasFor(entry));

/** esbuild's options for a bundle of the CDK stack (infra/bundling.ts), whatever its entry points. */
function options(entry: string): BuildOptions & { metafile: true } {
  return {
    bundle: true,
    platform: bundling.platform,
    target: bundling.target,
    format: bundling.format,
    minify: bundling.minify,
    sourcemap: bundling.sourcemap,
    sourcesContent: bundling.sourcesContent,
    mainFields: [...bundling.mainFields],
    banner: { js: bundling.banner },
    inject: bundling.inject.map((file) => resolve(repoRoot, file)),
    external: [...bundling.external],
    alias: Object.fromEntries(Object.entries(aliasOf(entry)).map(([from, to]) => [from, resolve(repoRoot, to)])),
    metafile: true,
    logLevel: 'silent',
  };
}

/** The bundle of `entry` in its folder under `outRoot`, from the metafile of the build that wrote it. */
async function bundleOf(entry: string, outRoot: string, outputs: Metafile['outputs']): Promise<Bundle> {
  const name = entry === baselineEntry ? 'Baseline (document client only)' : functionId(entry);
  const dir = join(outRoot, functionId(entry));
  const file = join(dir, `index${bundling.outExtension}`);
  const mapFile = `${file}.map`;
  const at = (path: string) => relative(dir, resolve(path));
  const output = (path: string) => outputs[Object.keys(outputs).find((o) => at(o) === path)!]!;
  // What init loads: the entry and, transitively, the chunks it imports statically.
  const atInit = new Set<string>();
  const visit = (path: string) => {
    if (atInit.has(path)) return;
    atInit.add(path);
    for (const i of output(path).imports) if (i.kind === 'import-statement' && !i.external) visit(at(i.path));
  };
  visit(basename(file));
  const chunks = Object.keys(outputs)
    .map(at)
    .filter((path) => !path.startsWith('..') && path.endsWith(bundling.outExtension));
  const lazyChunks = chunks.filter((path) => !atInit.has(path)).map((path) => ({ path, bytes: output(path).bytes }));
  const bytes = [...atInit].reduce((sum, path) => sum + output(path).bytes, 0);
  return { name, entry, file, mapFile, bytes, mapBytes: (await stat(mapFile)).size, lazyChunks };
}

/**
 * Builds one bundle exactly as the CDK stack does (same esbuild options, `index.mjs` + map; a split
 * bundle, infra/bundling.ts `splitEntries`, with its chunks beside them).
 */
export async function buildBundle(entry: string, outRoot: string): Promise<Bundle> {
  const dir = join(outRoot, functionId(entry));
  await mkdir(dir, { recursive: true });
  const split = splitEntries.includes(entry);
  const result = await build({
    entryPoints: [resolve(repoRoot, entry)],
    ...(split
      ? { splitting: true, outdir: dir, entryNames: 'index', chunkNames, outExtension: { '.js': bundling.outExtension } }
      : { outfile: join(dir, `index${bundling.outExtension}`) }),
    ...options(entry),
  });
  return bundleOf(entry, outRoot, result.metafile.outputs);
}

/**
 * Builds the bundles of several entries that are not split and share their module replacements in
 * one esbuild run: each is the same file as built alone (esbuild links every entry point on its
 * own), but the modules they share (the AWS SDK, the HTTP stack) are read and parsed once.
 */
async function buildTogether(entries: string[], outRoot: string): Promise<Bundle[]> {
  const result = await build({
    entryPoints: entries.map((entry) => ({ in: resolve(repoRoot, entry), out: join(functionId(entry), 'index') })),
    outdir: outRoot,
    outExtension: { '.js': bundling.outExtension },
    ...options(entries[0]!),
  });
  return Promise.all(entries.map((entry) => bundleOf(entry, outRoot, result.metafile.outputs)));
}

/** Why a bundle is over its size budget, or undefined. */
export function sizeRefusal(bundle: Bundle): string | undefined {
  if (bundle.bytes >= budget.maxBytes) return `${bundle.name}: init loads ${bundle.bytes} bytes`;
  const big = bundle.lazyChunks.find((c) => c.bytes >= budget.maxBytes);
  return big ? `${bundle.name}: ${big.path} is ${big.bytes} bytes` : undefined;
}

/**
 * Every function of the stack plus the yardstick, built into `outRoot`; build errors by entry. The
 * entries that share their esbuild options are built in one run (`buildTogether`); if that run
 * fails, each of them is built alone, so that an error names its entry.
 */
export async function buildAll(outRoot: string): Promise<{ baseline: Bundle; bundles: Bundle[]; failures: Map<string, Error> }> {
  const { routes } = await import('../../lib/routes.ts');
  const baseline = await buildBundle(baselineEntry, outRoot);
  const entries = allFunctionEntries(routes);
  const built = new Map<string, Bundle>();
  const failures = new Map<string, Error>();
  const groups = new Map<string, string[]>();
  const alone: string[] = [];
  for (const entry of entries) {
    if (splitEntries.includes(entry)) alone.push(entry);
    else {
      const key = JSON.stringify(aliasOf(entry));
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
  }
  for (const group of groups.values()) {
    try {
      for (const bundle of await buildTogether(group, outRoot)) built.set(bundle.entry, bundle);
    } catch {
      alone.push(...group);
    }
  }
  for (const entry of alone) {
    try {
      built.set(entry, await buildBundle(entry, outRoot));
    } catch (err) {
      failures.set(entry, err as Error);
    }
  }
  return { baseline, bundles: entries.filter((entry) => built.has(entry)).map((entry) => built.get(entry)!), failures };
}

/**
 * Built-in modules the Lambda runtime has loaded before it imports a handler: its runtime
 * interface client talks to the Runtime API over `node:http`. A bundle importing it (middy's
 * HTTP error helpers do) pays nothing for it on Lambda, so the probe loads it first, for every
 * bundle and the yardstick alike.
 */
export const lambdaRuntimePreloads = ['node:http'];

// Runs in the fresh process: the time from asking for the module to having it, handler included.
const PROBE = `
for (const name of JSON.parse(process.argv[2])) await import(name);
const c0 = process.cpuUsage();
const t0 = performance.now();
const mod = await import(process.argv[1]);
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000, handler: typeof mod.handler }));
process.exit(0);
`;

export interface LoadResult {
  /** Wall-clock time of the import. */
  ms: number;
  /** CPU time the process spent in it (all threads): what init costs, whatever else runs. */
  cpuMs: number;
  /** `typeof` the module's `handler` export. */
  handler: string;
}

/**
 * Copies the bundle (and its map) alone into a new empty folder and imports it in a fresh `node`
 * process with a Lambda-like environment (no node_modules anywhere above, no credentials).
 */
export async function loadAlone(bundle: Bundle): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bundle-alone-'));
  try {
    const file = join(dir, `index${bundling.outExtension}`);
    // The bundle's folder: `index.mjs`, its map, and a split bundle's chunks.
    await cp(dirname(bundle.file), dir, { recursive: true });
    const env = {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      TABLE_NAME: 'bundle-bench',
      ...runtimeEnvironment,
    };
    const { code, stdout, stderr } = await run(
      process.execPath,
      ['--input-type=module', '-e', PROBE, pathToFileURL(file).href, JSON.stringify(lambdaRuntimePreloads)],
      {
        cwd: dir,
        env,
      },
    );
    if (code !== 0) {
      // Minified source lines in the trace are long: keep the message and the stack.
      const trace = stderr
        .split('\n')
        .filter((line) => line.length < 300 && line.trim() && !/^\s*\^+\s*$/.test(line))
        .slice(-12)
        .join('\n');
      throw new Error(`${bundle.name} does not load on its own (exit ${code}):\n${trace}`);
    }
    return JSON.parse(stdout) as LoadResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a command to its end, with what it printed. */
export function run(cmd: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

export interface Measurement {
  bundle: Bundle;
  /** Least CPU time of the module init over the rounds, in ms: the budgeted figure. */
  cpuMs: number;
  /** Median CPU time, in ms. */
  cpuMedianMs: number;
  /** Median wall-clock time, in ms (noisy on a busy machine). */
  wallMs: number;
  /** Why the bundle did not load on its own, if it did not. */
  error?: Error;
}

/** Loads every bundle once per round, in a shuffled order each round; figures per bundle. */
export async function measureInit(bundles: Bundle[], rounds: number): Promise<Measurement[]> {
  const samples = new Map<Bundle, LoadResult[]>(bundles.map((b) => [b, []]));
  const errors = new Map<Bundle, Error>();
  for (let round = 0; round < rounds; round++) {
    const order = [...bundles].filter((b) => !errors.has(b)).sort(() => Math.random() - 0.5);
    for (const bundle of order) {
      try {
        samples.get(bundle)!.push(await loadAlone(bundle));
      } catch (err) {
        errors.set(bundle, err as Error);
      }
    }
  }
  return bundles.map((bundle) => {
    const s = samples.get(bundle)!;
    const error = errors.get(bundle);
    if (error) return { bundle, cpuMs: Number.NaN, cpuMedianMs: Number.NaN, wallMs: Number.NaN, error };
    const cpu = s.map((r) => r.cpuMs);
    return { bundle, cpuMs: Math.min(...cpu), cpuMedianMs: median(cpu), wallMs: median(s.map((r) => r.ms)) };
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
  const rounds = Math.max(1, Number(values.rounds));
  const outRoot = join(repoRoot, '.tmp', 'bundles');
  await rm(outRoot, { recursive: true, force: true });
  const { baseline, bundles, failures } = await buildAll(outRoot);
  for (const [entry, err] of failures) process.stderr.write(`${entry} does not build: ${err.message}\n`);
  process.stderr.write(`built ${bundles.length + 1} bundles; timing ${rounds} rounds...\n`);
  const measured = await measureInit([baseline, ...bundles], rounds);
  const base = measured[0]!.cpuMs;
  const lines = [
    `Node ${process.version}, ${rounds} rounds: module init of each bundle loaded alone in a fresh process.`,
    '',
    '| Function | Bundle (KB) | Loaded on use (KB) | Source map (KB) | Init CPU, least (ms) | Init CPU, median (ms) | Init wall, median (ms) | × baseline |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  let over = failures.size;
  for (const m of measured) {
    const ratio = m.cpuMs / base;
    const bad = m.bundle !== baseline && (m.error || sizeRefusal(m.bundle) !== undefined || ratio > budget.maxInitRatio);
    const lazy = m.bundle.lazyChunks.map((c) => kb(c.bytes)).join(' + ') || '–';
    if (bad) over++;
    if (m.error) process.stderr.write(`${m.error.message}\n`);
    lines.push(
      `| ${m.bundle.name}${m.error ? ' **does not load**' : bad ? ' **over budget**' : ''} | ${kb(m.bundle.bytes)} | ${lazy} | ${kb(m.bundle.mapBytes)} | ${m.cpuMs.toFixed(1)} | ${m.cpuMedianMs.toFixed(1)} | ${m.wallMs.toFixed(1)} | ${ratio.toFixed(2)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (over) {
    process.stderr.write(
      `${over} bundle(s) over budget (< ${kb(budget.maxBytes)} KB, init ≤ ${budget.maxInitRatio}× baseline)\n`,
    );
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

/**
 * `npm run bench:import [-- --issues 10000] [--jvm "<options>"]`: the time and memory of importing
 * a Jira CSV export of `--issues` rows into an empty project, on DynamoDB Local on a free port (in
 * memory, shared with nothing, with the test suite's JVM options unless `--jvm` gives others). The
 * file is generated (tools/bench/import-file.ts: labels, sprints, parents, people known and
 * unknown, multi-line descriptions) and read as a stream. Prints one JSON line: rows, created,
 * seconds, rows per second, where the time went (this process's CPU, DynamoDB Local's CPU, the
 * time spent waiting for DynamoDB), the DynamoDB calls by command with the items they carried, the
 * dry run's seconds, the second run's seconds (nothing created), and the largest resident memory
 * seen (MB), the largest heap, the heap before the run (after a full collection) and what the run
 * holds at its end beyond it. `--stream off` creates the table without its stream (diagnosis: what
 * the emulator's stream records cost).
 */
import { parseArgs } from 'node:util';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { localClientConfig, longRunJvmOptions, startDynamoDbLocal } from '../local/dynamodb.ts';
import { benchFile } from './import-file.ts';

const { values } = parseArgs({
  options: {
    issues: { type: 'string', default: '10000' },
    jvm: { type: 'string', default: longRunJvmOptions.join(' ') },
    stream: { type: 'string', default: 'on' },
  },
});
// A full collection on demand: what the import holds is the heap it leaves after one.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const total = Number(values.issues);

// The test suite's JVM options (`longRunJvmOptions`, tools/local/dynamodb.ts): both compilers, which
// over an import of 10,000 rows cost the emulator 0.85x the CPU of the quick compiler alone, and
// the serial garbage collector. `--jvm='...'` runs it with others (docs/import-export.md).
const dynamo = await startDynamoDbLocal({ jvmOptions: values.jvm.split(' ').filter(Boolean) });
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
process.env.TABLE_NAME = `bench-import-${Date.now()}`;
process.env.AWS_REGION ??= 'local';

const { ensureTable } = await import('../local/table.ts');
const { tableName, db } = await import('../../lib/db/core/client.ts');
const { createOrganisation, createAccountInOrg } = await import('../../lib/services/accounts.ts');
const { createProject } = await import('../../lib/services/projects.ts');
const { importIssues } = await import('../../lib/services/import-export/import.ts');

if (values.stream === 'off') {
  // Diagnosis only (`--stream off`): the table without its stream, to see what the emulator's
  // stream records cost; the table as deployed has it on.
  const { CreateTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { createTableInput } = await import('../../lib/db/core/table.ts');
  const client = new DynamoDBClient(localClientConfig(dynamo.endpoint));
  await client.send(new CreateTableCommand({ ...createTableInput(tableName()), StreamSpecification: undefined }));
} else await ensureTable(dynamo.endpoint, tableName());
const org = await createOrganisation('Bench', { name: 'Admin', email: 'admin@example.com' });
const orgId = org.organisation.id;
await createAccountInOrg(orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
const caller = { orgId, accountId: org.account.id, role: 'admin' as const, tokenHash: '' };
const project = await createProject(caller, { name: 'Bench', prefix: 'BEN' });

/** The calls of the import run (not the dry run's, nor the second run's), and the time something waited on DynamoDB. */
const calls = new Map<string, { calls: number; items: number }>();
let counting = false;
let inFlight = 0;
let busySince = 0;
let waitedMs = 0;
db.middlewareStack.add(
  (next, context) => async (args) => {
    if (!counting) return next(args);
    const input = args.input as { TransactItems?: unknown[]; RequestItems?: Record<string, unknown[] | { Keys: unknown[] }> };
    const batch = Object.values(input.RequestItems ?? {}).reduce<number>(
      (n, r) => n + (Array.isArray(r) ? r.length : r.Keys.length),
      0,
    );
    const name = String(context.commandName).replace(/Command$/, '');
    const seen = calls.get(name) ?? { calls: 0, items: 0 };
    seen.calls += 1;
    seen.items += input.TransactItems?.length ?? (batch || 1);
    calls.set(name, seen);
    if (inFlight++ === 0) busySince = performance.now();
    try {
      return await next(args);
    } finally {
      if (--inFlight === 0) waitedMs += performance.now() - busySince;
    }
  },
  { step: 'initialize', name: 'benchCalls' },
);

gc();
/** Resident memory before the first import: the runtime, the loader, the SDK and the modules loaded. */
const rssAtStart = process.memoryUsage().rss;
let peak = 0;
let peakHeap = 0;
let peakHeapTotal = 0;
let peakExternal = 0;
const sample = () => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakHeapTotal = Math.max(peakHeapTotal, m.heapTotal);
  peakExternal = Math.max(peakExternal, m.external);
};
const sampler = setInterval(sample, 100);
const timed = async (dryRun: boolean) => {
  const started = performance.now();
  const report = await importIssues({ orgId, projectId: project.id, format: 'jira-csv', dryRun }, () =>
    Readable.from(benchFile(total)),
  );
  return { report, seconds: (performance.now() - started) / 1000 };
};
const dry = await timed(true);
gc();
const heapBefore = process.memoryUsage().heapUsed;
const cpuBefore = process.cpuUsage();
const emulatorBefore = dynamo.cpuSeconds() ?? 0;
counting = true;
const run = await timed(false);
counting = false;
const cpu = process.cpuUsage(cpuBefore);
const emulator = (dynamo.cpuSeconds() ?? 0) - emulatorBefore;
gc();
// What the import holds at its end (its report, with every key's number) beyond the heap before it.
const held = process.memoryUsage().heapUsed - heapBefore;
const again = await timed(false);
clearInterval(sampler);
sample();
const round = (n: number) => Math.round(n * 10) / 10;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
process.stdout.write(
  `${JSON.stringify({
    rows: run.report.rows,
    created: run.report.created,
    parents_linked: run.report.parents.linked,
    seconds: round(run.seconds),
    rows_per_second: Math.round(run.report.rows / run.seconds),
    cpu_seconds: { importer: round((cpu.user + cpu.system) / 1e6), dynamodb_local: round(emulator) },
    waiting_on_dynamodb_seconds: round(waitedMs / 1000),
    calls: Object.fromEntries(calls),
    dry_run_seconds: round(dry.seconds),
    second_run_seconds: round(again.seconds),
    second_run_created: again.report.created,
    rss_before_imports_mb: mb(rssAtStart),
    peak_rss_mb: mb(peak),
    peak_heap_mb: mb(peakHeap),
    peak_heap_reserved_mb: mb(peakHeapTotal),
    peak_external_mb: mb(peakExternal),
    heap_before_run_mb: mb(heapBefore),
    heap_held_by_run_mb: round(held / 1024 / 1024),
  })}\n`,
);
await dynamo.stop();

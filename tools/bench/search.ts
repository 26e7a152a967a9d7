/**
 * `npm run bench:search`: what a search page costs on a large organisation (docs/search.md). Starts
 * its own DynamoDB Local on a free port, seeds an organisation of `--issues` issues (100,000) in
 * `--projects` projects (50): the projects and their label catalogues through the domain, and one
 * search record per issue by BatchWrite (the stored shape the `search-index` derivation writes:
 * `recordItem`, lib/db/issues/issue-write.ts), which is all a search reads of an issue. Then measures, in
 * this one run, through the domain function both search routes call, the first page (per_page 25)
 * of:
 *
 * - a one-project search (`project:P01`, 2% of the issues): the baseline of the ratios;
 * - `assignee:@me is:open` (the caller holds 5% of the issues, 60% of them open: 3%);
 * - `label:rare is:open` (1%);
 * - `updated:>-1d` (the updates are spread over a year: 0.3%, read as a key range);
 * - free text (`needle`, in 1% of the titles);
 * - and the walk of every page of `label:rare is:open` to the end.
 *
 * Each figure is the median of `--rounds` runs (interleaved): wall time, DynamoDB read units
 * (ReturnConsumedCapacity), calls, and serial round trips (calls that start only after every call
 * before them ended). Prints Markdown tables.
 *
 *   npm run bench:search [-- --rounds 9 --issues 100000 --projects 50]
 */
import { parseArgs } from 'node:util';
import { startDynamoDbLocal } from '../local/dynamodb.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    issues: { type: 'string', default: '100000' },
    projects: { type: 'string', default: '50' },
  },
});
const rounds = Number(values.rounds);
const total = Number(values.issues);
const projectCount = Number(values.projects);

const dynamo = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
process.env.TABLE_NAME = `bench-search-${Date.now()}`;
process.env.AWS_REGION ??= 'local';

// Modules that read the endpoint at load come after it is set.
const { ensureTable } = await import('../local/table.ts');
const { db, tableName } = await import('../../lib/db/core/client.ts');
const { recordItem } = await import('../../lib/db/issues/issue-write.ts');
const { createOrganisation } = await import('../../lib/services/accounts.ts');
const { createProject } = await import('../../lib/services/projects.ts');
const { createLabel } = await import('../../lib/services/labels.ts');
const { searchIssues } = await import('../../lib/services/search.ts');
const { parseSelection } = await import('../../lib/model/selection.ts');
const { putAll } = await import('../../test/support/seed.ts');

/** Read units, calls and serial round trips of every DynamoDB call made while a step runs. */
const meter = { units: 0, calls: 0, spans: [] as [number, number][] };
db.middlewareStack.add(
  (next) => async (args) => {
    (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
    const start = performance.now();
    const out = await next(args);
    meter.spans.push([start, performance.now()]);
    const consumed = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
      meter.units += Number((c as { CapacityUnits?: number }).CapacityUnits ?? 0);
    }
    meter.calls += 1;
    return out;
  },
  { step: 'initialize', name: 'benchSearchMeter' },
);
/** Calls that start after every call before them ended begin a new round trip. */
const roundTrips = (spans: [number, number][]) => {
  let trips = 0;
  let end = -Infinity;
  for (const [s, e] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (s >= end) trips++;
    end = Math.max(end, e);
  }
  return trips;
};

/** A deterministic stream of numbers in [0, 1) (mulberry32: 32-bit integer arithmetic, no float precision lost). */
let state = 42;
const rand = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

try {
  await ensureTable(dynamo.endpoint, tableName());
  const started = Date.now();
  const org = await createOrganisation('Bench', { name: 'Bench Admin', email: 'bench@example.com' });
  const caller = { orgId: org.organisation.id, accountId: org.account.id, role: 'admin' as const, tokenHash: '' };
  const names = ['bug', 'feature', 'chore', 'docs', 'ui', 'api', 'perf', 'security', 'infra', 'rare'];
  const projects: { id: number; prefix: string; labels: number[] }[] = [];
  for (let p = 0; p < projectCount; p++) {
    const prefix = `P${String(p + 1).padStart(2, '0')}`;
    const project = await createProject(caller, { name: `Project ${p + 1}`, prefix });
    const labels: number[] = [];
    for (const name of names) labels.push((await createLabel(caller, project.id, { name })).id);
    projects.push({ id: project.id, prefix, labels });
  }
  const statuses = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'] as const;
  const now = Date.now();
  const YEAR = 365 * 86_400_000;
  const records: Record<string, unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const project = projects[i % projectCount] as (typeof projects)[number];
    const labels = [project.labels[Math.floor(rand() * 9)] as number];
    // 1.67% carry `rare`, 60% of them open: 1% match `label:rare is:open`.
    if (rand() < 1 / 60) labels.push(project.labels[9] as number);
    records.push(
      recordItem({
        kind: 'search',
        orgId: caller.orgId,
        projectId: project.id,
        issueId: 1_000_000 + i,
        number: `${project.prefix}-${Math.floor(i / projectCount) + 1}`,
        title: rand() < 0.01 ? `Find the needle ${i}` : `Issue ${i} of the bench`,
        sprintId: null,
        position: (Math.floor(i / projectCount) + 1) * 1024,
        status: statuses[Math.floor(rand() * 5)] as (typeof statuses)[number],
        priority: 'none',
        type: 'task',
        labelIds: labels.sort((a, b) => a - b),
        assigneeId: rand() < 0.05 ? caller.accountId : 1_000 + Math.floor(rand() * 20),
        authorId: caller.accountId,
        storyPoints: Math.floor(rand() * 8),
        dueDate: null,
        parentId: null,
        createdAt: new Date(now - YEAR).toISOString(),
        updatedAt: new Date(now - Math.floor(rand() * YEAR)).toISOString(),
        sourceKey: null,
      }),
    );
  }
  await putAll(records, 16);
  const seedSeconds = (Date.now() - started) / 1000;

  const queries: Record<string, string> = {
    'one project (`project:P01`, 2%)': 'project:P01',
    '`assignee:@me is:open` (3%)': 'assignee:@me is:open',
    '`label:rare is:open` (1%)': 'label:rare is:open',
    '`updated:>-1d` (0.3%, a key range)': 'updated:>-1d',
    'free text (`needle`, 1%)': 'needle',
  };
  const baseline = Object.keys(queries)[0] as string;
  type Sample = { ms: number; units: number; calls: number; trips: number; found: number; more: boolean };
  const samples = new Map<string, Sample[]>();
  const run = async (q: string, cursor?: string) => {
    meter.units = 0;
    meter.calls = 0;
    meter.spans = [];
    const t0 = performance.now();
    const page = await searchIssues(caller, parseSelection(q), { perPage: 25, cursor });
    return {
      page,
      sample: {
        ms: performance.now() - t0,
        units: meter.units,
        calls: meter.calls,
        trips: roundTrips(meter.spans),
        found: page.items.length,
        more: page.nextCursor !== undefined,
      },
    };
  };
  for (let r = 0; r < rounds + 1; r++) {
    for (const [name, q] of Object.entries(queries)) {
      const { sample } = await run(q);
      if (r === 0) continue; // warm-up
      samples.set(name, [...(samples.get(name) ?? []), sample]);
    }
  }
  // The walk of every page of one query, by its cursor, to the end.
  const walk = { ms: 0, units: 0, calls: 0, pages: 0, matches: 0 };
  let cursor: string | undefined;
  do {
    const { page, sample } = await run('label:rare is:open', cursor);
    walk.ms += sample.ms;
    walk.units += sample.units;
    walk.calls += sample.calls;
    walk.pages++;
    walk.matches += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const row = (name: string) => {
    const s = samples.get(name) as Sample[];
    return {
      ms: median(s.map((x) => x.ms)),
      units: median(s.map((x) => x.units)),
      calls: median(s.map((x) => x.calls)),
      trips: median(s.map((x) => x.trips)),
      found: median(s.map((x) => x.found)),
      more: s.every((x) => x.more),
    };
  };
  const fmt = (n: number, d = 1) => n.toFixed(d);
  const base = row(baseline);
  console.log(
    `\n${total.toLocaleString('en')} issues in ${projectCount} projects (seeded in ${fmt(seedSeconds)} s), first page (per_page 25), median of ${rounds} rounds, DynamoDB Local.\n`,
  );
  console.log(
    '| query | serial round trips | calls | read units | time (ms) | issues on the page | next | ratio to one project (time, read units) |',
  );
  console.log('|---|--:|--:|--:|--:|--:|---|---|');
  for (const name of Object.keys(queries)) {
    const r = row(name);
    console.log(
      `| ${name} | ${r.trips} | ${r.calls} | ${fmt(r.units)} | ${fmt(r.ms)} | ${r.found} | ${r.more ? 'yes' : 'no'} | ${fmt(r.ms / base.ms, 2)}x, ${fmt(r.units / base.units, 2)}x |`,
    );
  }
  console.log(
    `\nEvery page of \`label:rare is:open\` to the end: ${walk.pages} pages, ${walk.matches} matches, ${fmt(walk.units)} read units, ${walk.calls} calls, ${fmt(walk.ms / 1000)} s.`,
  );
  // The request's own call (the authorizer's token read) is not in these figures: add 1 call and 1 round trip.
} finally {
  await dynamo.stop();
}

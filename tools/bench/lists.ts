/**
 * `npm run bench:lists`: what reading a big issue list costs (docs/issue-lists.md). Starts its own
 * DynamoDB Local on a free port, seeds a project whose backlog holds 10,000 issues (BatchWrite of
 * the stored shapes, with the rank index the writes keep; 1% of the titles contain "needle"),
 * then measures, in this one run, through the domain functions the handlers call:
 *
 * - page 1 vs page 100 (per_page 100) and page 1 vs page 400 (per_page 25);
 * - the GET of the first issue vs the GET of the last (place 10,000);
 * - a filtered page (`q=needle`, 1% matching) vs an unfiltered page of the same size, and the
 *   walk of all the filtered pages to the end;
 * - pages filtered on what classifies an issue (`priority=urgent`, 5%; `type=bug`, 20%) vs the
 *   same unfiltered page: the issues are seeded with these fields (`classification` below), and
 *   each filter measured is one line of `classifiedPages`.
 * - pages filtered by label (`labels=bug`: every issue carries one of ten labels, 10% matching;
 *   `labels=rare`: 1%, the needle issues) vs the unfiltered page.
 *
 * Each figure is the median of `--rounds` runs (interleaved), in wall time and in DynamoDB read
 * units (ReturnConsumedCapacity on every call), with DynamoDB calls per request. Prints a
 * Markdown table. A few minutes on two cores, most of it seeding.
 *
 *   npm run bench:lists [-- --rounds 15 --issues 10000]
 */
import { parseArgs } from 'node:util';
import { startDynamoDbLocal } from '../local/dynamodb.ts';
import type { IssueListFilters } from '../../lib/schemas/issues.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '15' }, issues: { type: 'string', default: '10000' } },
});
const rounds = Number(values.rounds);
const total = Number(values.issues);

const dynamo = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
process.env.TABLE_NAME = `bench-lists-${Date.now()}`;
process.env.AWS_REGION ??= 'local';

// Modules that read the endpoint at load come after it is set.
const { ensureTable } = await import('../local/table.ts');
const { db, tableName } = await import('../../lib/db/core/client.ts');
const { keys } = await import('../../lib/db/core/keys.ts');
const { createOrganisation } = await import('../../lib/services/accounts.ts');
const { createProject } = await import('../../lib/services/projects.ts');
const { getIssue, listIssues } = await import('../../lib/services/issues.ts');
const { createLabel } = await import('../../lib/services/labels.ts');
const { seedProject } = await import('../../test/support/seed.ts');
const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');

/**
 * What the n-th issue of the backlog is seeded with, as stored, spread over the list: 5% urgent,
 * 15% high, 30% medium, 20% low, 30% none; 20% bugs, 30% stories, 2% epics, the rest tasks. A new
 * field to filter on (labels) is one more line here and one in `classifiedPages`.
 */
const classification: Record<string, (n: number) => unknown> = {
  priority: (n) =>
    ['urgent', 'high', 'high', 'high', ...Array(6).fill('medium'), ...Array(4).fill('low'), ...Array(6).fill('none')][n % 20],
  issue_type: (n) => (n % 50 === 7 ? 'epic' : n % 5 === 1 ? 'bug' : n % 10 < 3 ? 'story' : 'task'),
};
const classifiedPages: Record<string, IssueListFilters> = {
  'filtered page 1 (priority=urgent, 5%, per_page 25)': { priority: ['urgent'] },
  'filtered page 1 (type=bug, 20%, per_page 25)': { type: ['bug'] },
};

/** Read units and calls of every DynamoDB call made while a measured step runs. */
const { meter } = (await import('../../test/support/read-meter.ts')).meterReads();

try {
  await ensureTable(dynamo.endpoint, tableName());
  const started = Date.now();
  const org = await createOrganisation('Bench', { name: 'Bench Admin', email: 'bench@example.com' });
  const caller = { orgId: org.organisation.id, accountId: org.account.id, role: 'admin' as const, tokenHash: '' };
  const project = await createProject(caller, { name: 'Big', prefix: 'BIG' });
  // Ten labels, one on every issue in turn (10% each), and `rare` on the needle issues (1%).
  const names = ['bug', 'feature', 'chore', 'docs', 'ui', 'api', 'perf', 'security', 'infra', 'test'];
  const labelIds: number[] = [];
  for (const name of names) labelIds.push((await createLabel(caller, project.id, { name })).id);
  const rare = (await createLabel(caller, project.id, { name: 'rare' })).id;
  const seeded = await seedProject(caller.orgId, project.id, caller.accountId, {
    sprints: 0,
    issuesPerSprint: 0,
    backlog: total,
    commentsPerIssue: 0,
    issueFields: (n) => ({
      ...Object.fromEntries(Object.entries(classification).map(([field, of]) => [field, of(n)])),
      label_ids: new Set([labelIds[n % 10] as number, ...(n % 100 === 50 ? [rare] : [])]),
    }),
  });
  const ids = seeded.issues.get(null) ?? [];
  // 1% of the titles hold the needle, spread over the list.
  for (let i = 0; i < ids.length; i += 400) {
    await Promise.all(
      ids.slice(i, i + 400).flatMap((id, k) =>
        (i + k) % 100 === 50
          ? [
              db.send(
                new UpdateCommand({
                  TableName: tableName(),
                  Key: keys.issue(caller.orgId, project.id, id),
                  UpdateExpression: 'SET title = :t',
                  ExpressionAttributeValues: { ':t': `Find the needle ${id}` },
                }),
              ),
            ]
          : [],
      ),
    );
  }
  const seedSeconds = (Date.now() - started) / 1000;
  const backlog = { projectId: project.id, sprintId: null };

  type Step = () => Promise<unknown>;
  const steps: Record<string, Step> = {
    'page 1 (per_page 100)': () => listIssues(caller, backlog, { page: 1, perPage: 100 }),
    'page 100 (per_page 100)': () => listIssues(caller, backlog, { page: 100, perPage: 100 }),
    'page 1 (per_page 25)': () => listIssues(caller, backlog, { page: 1, perPage: 25 }),
    'page 400 (per_page 25)': () => listIssues(caller, backlog, { page: 400, perPage: 25 }),
    'GET the first issue': () => getIssue(caller, backlog, ids[0] as number),
    'GET the last issue (place 10,000)': () => getIssue(caller, backlog, ids.at(-1) as number),
    'filtered page 1 (q=needle, per_page 25)': () => listIssues(caller, backlog, { page: 1, perPage: 25 }, { q: 'needle' }),
    ...Object.fromEntries(
      Object.entries(classifiedPages).map(([name, filters]) => [
        name,
        () => listIssues(caller, backlog, { page: 1, perPage: 25 }, filters),
      ]),
    ),
    'filtered page 1 (labels=bug, 10%, per_page 25)': () =>
      listIssues(caller, backlog, { page: 1, perPage: 25 }, { labels: ['bug'] }),
    'filtered page 1 (labels=rare, 1%, per_page 25)': () =>
      listIssues(caller, backlog, { page: 1, perPage: 25 }, { labels: ['rare'] }),
  };
  const samples = new Map<string, { ms: number[]; units: number[]; calls: number[] }>();
  for (let r = 0; r < rounds + 1; r++) {
    for (const [name, step] of Object.entries(steps)) {
      meter.units = 0;
      meter.calls = 0;
      const t0 = performance.now();
      await step();
      const ms = performance.now() - t0;
      if (r === 0) continue; // warm-up
      const s = samples.get(name) ?? { ms: [], units: [], calls: [] };
      s.ms.push(ms);
      s.units.push(meter.units);
      s.calls.push(meter.calls);
      samples.set(name, s);
    }
  }

  // The whole filtered walk: every page by its cursor, to the end.
  meter.units = 0;
  meter.calls = 0;
  const t0 = performance.now();
  let cursor: string | undefined;
  let pages = 0;
  let matches = 0;
  let last: Awaited<ReturnType<typeof listIssues>> | undefined;
  do {
    last = await listIssues(caller, backlog, { page: 1, perPage: 25, cursor }, { q: 'needle' });
    matches += last.items.length;
    cursor = last.page.nextCursor;
    pages++;
  } while (cursor);
  const walk = { ms: performance.now() - t0, units: meter.units, calls: meter.calls, pages, matches, total: last.total };

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] as number;
  };
  const row = (name: string) => {
    const s = samples.get(name) as { ms: number[]; units: number[]; calls: number[] };
    return { ms: median(s.ms), units: median(s.units), calls: median(s.calls) };
  };
  const fmt = (n: number, d = 1) => n.toFixed(d);
  console.log(`\nBacklog of ${total} issues (seeded in ${fmt(seedSeconds)} s), median of ${rounds} rounds, DynamoDB Local.\n`);
  console.log('| read | time (ms) | read units | DynamoDB calls |');
  console.log('|---|---:|---:|---:|');
  for (const name of Object.keys(steps)) {
    const r = row(name);
    console.log(`| ${name} | ${fmt(r.ms)} | ${fmt(r.units)} | ${r.calls} |`);
  }
  console.log(
    `| all filtered pages to the end (${walk.pages} pages, ${walk.matches} matches, X-Total-Count ${walk.total}) | ${fmt(walk.ms)} | ${fmt(walk.units)} | ${walk.calls} |`,
  );
  const ratio = (a: string, b: string) => {
    const x = row(a);
    const y = row(b);
    return `${fmt(x.ms / y.ms, 2)}x time, ${fmt(x.units / y.units, 2)}x read units`;
  };
  console.log('\n| ratio (same run) | |');
  console.log('|---|---|');
  console.log(`| page 100 / page 1 (per_page 100) | ${ratio('page 100 (per_page 100)', 'page 1 (per_page 100)')} |`);
  console.log(`| page 400 / page 1 (per_page 25) | ${ratio('page 400 (per_page 25)', 'page 1 (per_page 25)')} |`);
  console.log(`| GET last / GET first | ${ratio('GET the last issue (place 10,000)', 'GET the first issue')} |`);
  console.log(
    `| filtered page / unfiltered page (per_page 25) | ${ratio('filtered page 1 (q=needle, per_page 25)', 'page 1 (per_page 25)')} |`,
  );
  for (const name of Object.keys(classifiedPages)) {
    const filter = /\((\S+=\S+),/.exec(name)?.[1] ?? name;
    console.log(`| ${filter} page / unfiltered page (per_page 25) | ${ratio(name, 'page 1 (per_page 25)')} |`);
  }
  console.log(
    `| labels=bug page / unfiltered page (per_page 25) | ${ratio('filtered page 1 (labels=bug, 10%, per_page 25)', 'page 1 (per_page 25)')} |`,
  );
  console.log(
    `| labels=rare page / unfiltered page (per_page 25) | ${ratio('filtered page 1 (labels=rare, 1%, per_page 25)', 'page 1 (per_page 25)')} |`,
  );
  const deep = row('GET the last issue (place 10,000)');
  const shallow = row('GET the first issue');
  console.log(`\nThe place of the deepest issue costs ${fmt(deep.units - shallow.units, 1)} read units more than the first's.`);
} finally {
  await dynamo.stop();
}

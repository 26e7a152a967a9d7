/**
 * `npm run bench:import [-- --issues 10000]`: the time and memory of importing a Jira CSV export of
 * `--issues` rows into an empty project, on DynamoDB Local on a free port (in memory). The file is
 * generated (labels, sprints, parents, people known and unknown, multi-line descriptions) and read
 * as a stream; prints one JSON line: rows, created, seconds, rows per second, the dry run's seconds,
 * the second run's seconds (nothing created), and the largest resident memory seen (MB).
 */
import { parseArgs } from 'node:util';
import { Readable } from 'node:stream';
import { startDynamoDbLocal } from '../local/dynamodb.ts';
import { formatCsv } from '../../lib/model/formats/csv.ts';

const { values } = parseArgs({ options: { issues: { type: 'string', default: '10000' } } });
const total = Number(values.issues);

const dynamo = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
process.env.TABLE_NAME = `bench-import-${Date.now()}`;
process.env.AWS_REGION ??= 'local';

const { ensureTable } = await import('../local/table.ts');
const { tableName } = await import('../../lib/db/client.ts');
const { createOrganisation, createAccountInOrg } = await import('../../lib/services/accounts.ts');
const { createProject } = await import('../../lib/services/projects.ts');
const { importIssues } = await import('../../lib/services/import-export/import.ts');

await ensureTable(dynamo.endpoint, tableName());
const org = await createOrganisation('Bench', { name: 'Admin', email: 'admin@example.com' });
const orgId = org.organisation.id;
await createAccountInOrg(orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
const caller = { orgId, accountId: org.account.id, role: 'admin' as const, tokenHash: '' };
const project = await createProject(caller, { name: 'Bench', prefix: 'BEN' });

const header = [
  'Summary',
  'Issue key',
  'Issue id',
  'Issue Type',
  'Status',
  'Priority',
  'Assignee',
  'Created',
  'Updated',
  'Labels',
  'Labels',
  'Sprint',
  'Parent',
  'Description',
  'Custom field (Story point estimate)',
];
const statuses = ['To Do', 'In Progress', 'Done', 'Backlog', 'Waiting'];
/** The file as a stream of chunks of 1,000 rows: never whole in memory. */
function* file(): Generator<string> {
  yield formatCsv([header]);
  for (let from = 1; from <= total; from += 1000) {
    const rows: string[][] = [];
    for (let n = from; n < Math.min(from + 1000, total + 1); n++) {
      rows.push([
        `Issue ${n}: "quoted", é 日本語`,
        `SRC-${n}`,
        String(10_000 + n),
        n % 50 === 1 ? 'Epic' : n % 3 === 0 ? 'Bug' : 'Story',
        statuses[n % statuses.length] as string,
        ['High', 'Medium', 'Low'][n % 3] as string,
        n % 4 === 0 ? 'ada@example.com' : n % 4 === 1 ? 'nobody@example.com' : '',
        '03/Nov/26 9:05 AM',
        '20/Nov/26 4:30 PM',
        `area-${n % 20}`,
        n % 2 === 0 ? 'backend' : '',
        n % 5 === 0 ? '' : `Sprint ${1 + (n % 10)}`,
        n % 50 === 1 ? '' : `SRC-${n - (n % 50) + 1}`,
        `Line one of ${n}\nLine two, with a comma`,
        String(n % 8),
      ]);
    }
    yield formatCsv(rows);
  }
}

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
const timed = async (dryRun: boolean) => {
  const started = performance.now();
  const report = await importIssues({ orgId, projectId: project.id, format: 'jira-csv', dryRun }, () => Readable.from(file()));
  return { report, seconds: (performance.now() - started) / 1000 };
};
const dry = await timed(true);
const run = await timed(false);
const again = await timed(false);
clearInterval(sampler);
const round = (n: number) => Math.round(n * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    rows: run.report.rows,
    created: run.report.created,
    parents_linked: run.report.parents.linked,
    seconds: round(run.seconds),
    rows_per_second: Math.round(run.report.rows / run.seconds),
    dry_run_seconds: round(dry.seconds),
    second_run_seconds: round(again.seconds),
    second_run_created: again.report.created,
    peak_rss_mb: Math.round(peak / 1024 / 1024),
  })}\n`,
);
await dynamo.stop();

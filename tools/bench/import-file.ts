/** The Jira CSV file the import benches read: `total` generated rows (tools/bench/import.ts). */
import { formatCsv } from '../../lib/model/formats/csv.ts';

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
export function* benchFile(total: number): Generator<string> {
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

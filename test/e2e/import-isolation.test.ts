import { execFileSync } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../tools/local/dynamodb.ts';
import { adminCommand } from '../support/admin-cli.ts';
import { npmStart, stop } from '../support/npm-start.ts';

/**
 * `npm start` runs the import jobs' consumer in a worker thread (tools/local/worker-consumer.ts),
 * as AWS runs it in a Lambda of its own: while one organisation's large import runs, another
 * organisation's requests are answered at once. Against the run's DynamoDB Local, on a table of
 * this file's own.
 */

const CURL = /curl -H "Authorization: Bearer (stk_[A-Za-z0-9_-]{43})" (http:\/\/\S+)/;

/** A Jira CSV of about 5 MB whose rows are each wide (many `Watchers` columns): reading it is mostly CPU. */
function wideCsv(rows: number, columns: number) {
  const header = ['Summary', 'Issue key', 'Status', ...Array.from({ length: columns }, () => 'Watchers')].join(',');
  const filler = ','.repeat(columns - 1);
  const lines = Array.from({ length: rows }, (_, i) => `Row ${i + 1},WIDE-${i + 1},To Do,w${filler}`);
  return `${header}\n${lines.join('\n')}\n`;
}

describe('an import job under npm start', () => {
  it("runs off the API's event loop: another organisation's GET /me answers within a second meanwhile", async () => {
    const endpoint = inject('dynamodbEndpoint');
    const env = { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: `sts-import-isolation-${Date.now().toString(36)}` };
    const port = await freePort();
    const service = npmStart({ PORT: String(port), DYNAMODB_PORT: String(await freePort()), ...env });
    try {
      const [, tokenA] = await service.waitFor(CURL);
      await service.waitFor(/Sprint Ticketing Service on/);
      const base = `http://127.0.0.1:${port}/api/v1`;
      const [command, args] = adminCommand([
        'org:create',
        '--name',
        'Other',
        '--admin-name',
        'Bo',
        '--admin-email',
        'bo@example.com',
      ]);
      const created = JSON.parse(execFileSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8' })) as {
        token: string;
      };
      const me = async (token: string) => {
        const started = performance.now();
        const res = await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        return performance.now() - started;
      };
      const asA = { Authorization: `Bearer ${tokenA}` };
      // Each route's module loads on its first request: before the import, not during it.
      await me(created.token);
      const project = await fetch(`${base}/projects`, {
        method: 'POST',
        headers: { ...asA, 'Content-Type': 'application/json' },
        body: JSON.stringify({ project: { name: 'Wide', prefix: 'WIDE' } }),
      });
      const projectId = ((await project.json()) as { id: number }).id;
      const file = wideCsv(20, 20_000);
      const upload = await fetch(`${base}/imports?format=jira-csv&project_id=${projectId}`, {
        method: 'POST',
        headers: { ...asA, 'Content-Type': 'text/csv' },
        body: file,
      });
      expect(upload.status).toBe(202);
      const jobId = ((await upload.json()) as { id: string }).id;
      // While the job runs, the other organisation's GET /me, again and again.
      const latencies: number[] = [];
      let status = 'queued';
      let last: unknown;
      const until = Date.now() + 150_000;
      while ((status === 'queued' || status === 'running') && Date.now() < until) {
        latencies.push(await me(created.token));
        const job = await fetch(`${base}/imports/${jobId}`, { headers: asA });
        last = await job.json();
        status = (last as { status: string }).status;
      }
      console.log(`GET /me during the import: ${latencies.length} requests, slowest ${Math.round(Math.max(...latencies))} ms`);
      expect(status, `${JSON.stringify(last)}\n${service.output().slice(0, 3000)}`).toBe('succeeded');
      expect(latencies.length).toBeGreaterThan(3);
      expect(Math.max(...latencies)).toBeLessThan(1000);
      expect(await stop(service)).toBe(0);
    } finally {
      service.proc.kill('SIGKILL');
    }
  }, 200_000);
});

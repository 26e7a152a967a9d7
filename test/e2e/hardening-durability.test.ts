/**
 * Durability: `npm start` (its own DynamoDB Local, data in a temporary DATA_DIR, free ports) takes
 * writes, is stopped with SIGTERM, and after a restart on the same DATA_DIR everything written
 * before the signal is there, counters included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/local/dynamodb.ts';
import { repoRoot } from '../../infra/paths.ts';
import { apiClient, randomPrefix } from '../support/api.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sprint-ticketing-durability-'));
const running = new Set<ChildProcess>();

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  baseUrl: string;
  /** The first organisation's admin token, printed on the very first start only. */
  token?: string;
  output: () => string;
}

/** `npm start` on free ports; resolves once it listens. */
async function npmStart(): Promise<Started> {
  const [port, dynamodbPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DYNAMODB_PORT: String(dynamodbPort), DATA_DIR: dataDir };
  // The test run's own DynamoDB Local and table must not leak into the server under test.
  delete env.DYNAMODB_ENDPOINT;
  delete env.TABLE_NAME;
  delete env.PUBLIC_URL;
  delete env.MCP_ALLOWED_HOSTS;
  const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 90_000;
  while (!out.includes(`http://localhost:${port}/api/v1`)) {
    if (child.exitCode !== null) throw new Error(`npm start exited early (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start did not listen within 90 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 300)); // the token lines follow the listening line
  const token = /\b(stk_[A-Za-z0-9_-]{43})\b/.exec(out)?.[1];
  return { child, baseUrl: `http://127.0.0.1:${port}`, ...(token ? { token } : {}), output: () => out };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000));
  const result = await Promise.race([exited, timeout]);
  if (result === 'timeout') throw new Error(`npm start ignored SIGTERM for 30 s:\n${started.output()}`);
  return result;
}

describe('durability across SIGTERM and restart', () => {
  it('keeps everything written before SIGTERM', async () => {
    const first = await npmStart();
    expect(first.token, first.output()).toBeDefined();
    const admin = apiClient(first.baseUrl, first.token!);
    const project = (await admin.post('/api/v1/projects', { project: { name: 'Durable', prefix: randomPrefix() } })).body;
    const pp = `/api/v1/projects/${project.id}`;
    const sprint = (await admin.post(`${pp}/sprints`, { sprint: { name: 'Kept', start_date: '2026-01-05' } })).body;
    const issues = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin.post(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: `Kept ${i}`, story_points: 2 } }),
      ),
    );
    expect(issues.map((r) => r.status)).toEqual(new Array(10).fill(201));
    const backlog = (await admin.post(`${pp}/issues`, { issue: { title: 'Backlog, kept' } })).body;
    const comment = (
      await admin.post(`${pp}/sprints/${sprint.id}/issues/${issues[0]!.body.id}/comments`, {
        comment: { body: 'Written just before the signal' },
      })
    ).body;
    const activated = (await admin.post(`${pp}/sprints/${sprint.id}/activate`)).body;
    const snapshot = async (client: typeof admin) => ({
      project: (await client.get(pp)).body,
      sprint: (await client.get(`${pp}/sprints/${sprint.id}`)).body,
      issues: (await client.get(`${pp}/sprints/${sprint.id}/issues?per_page=100`)).body,
      backlog: (await client.get(`${pp}/issues`)).body,
      comment: (await client.get(`/api/v1/comments/${comment.id}`)).body,
    });
    const before = await snapshot(admin);
    expect(before.sprint).toMatchObject({ status: 'active', issues_count: 10, total_story_points: 20 });
    expect(activated.status).toBe('active');
    expect(before.backlog.map((i: { id: number }) => i.id)).toEqual([backlog.id]);

    expect(await stop(first)).toBe(0);

    const second = await npmStart();
    expect(second.token, 'a restart on existing data creates no new organisation').toBeUndefined();
    const again = apiClient(second.baseUrl, first.token!);
    expect(await snapshot(again)).toEqual(before);
    // And the restarted service keeps working on that data.
    const more = await again.post(`${pp}/sprints/${sprint.id}/issues`, { issue: { title: 'After restart' } });
    expect(more.status).toBe(201);
    expect(more.body.issue_number).toBe(`${project.prefix}-12`);
    expect(await stop(second)).toBe(0);
  }, 240_000);
});

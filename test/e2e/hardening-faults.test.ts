/**
 * Faults DynamoDB Local cannot produce, injected at the client (test/support/faults.ts, inside the SDK's
 * retry loop): throttling and transactions cancelled by a conflict. Each either retries cleanly
 * (one write, exact counters) or answers 503 {error} with Retry-After having applied nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ISSUE_WRITE_BUDGET } from '../../lib/services/issues.ts';
import { clearFaults, injectFault, quickSdkRetries } from '../support/faults.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, type ApiResponse, useGateway } from '../support/api.ts';

const gateway = useGateway();
afterEach(() => clearFaults());
// What is checked is what the retries do and answer, not how long the SDK waits between them.
quickSdkRetries();

const WRITE = 'TransactWriteItemsCommand';
const WRITES = [WRITE, 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'];
const READS = ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand'];

async function setup() {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Faults', prefix: randomPrefix() } })).body;
  const sprint = (await admin.post(`/api/v1/projects/${project.id}/sprints`, { sprint: { name: 'S1' } })).body;
  const base = `/api/v1/projects/${project.id}/sprints/${sprint.id}`;
  return { org, admin, project, sprint, base };
}

function expect503(res: ApiResponse) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ error: expect.any(String) });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

/** Everything observable about a sprint and its issues, to compare before and after a refusal. */
async function snapshot(admin: ApiClient, projectId: number, base: string) {
  const [project, sprint, issues, backlog] = await Promise.all([
    admin.get(`/api/v1/projects/${projectId}`),
    admin.get(base),
    admin.get(`${base}/issues?per_page=100`),
    admin.get(`/api/v1/projects/${projectId}/issues?per_page=100`),
  ]);
  const strip = (x: Record<string, unknown>) => ({ ...x, updated_at: undefined });
  return { project: strip(project.body), sprint: strip(sprint.body), issues: issues.body, backlog: backlog.body };
}

describe('throttling', () => {
  it('is retried by the SDK: a create throttled twice is written once, counters exact', async () => {
    const { admin, project, base } = await setup();
    const fault = injectFault({ commands: [WRITE], fault: 'ProvisionedThroughputExceeded', times: 2 });
    const res = await admin.post(`${base}/issues`, { issue: { title: 'Survives throttling', story_points: 3 } });
    expect(res.status).toBe(201);
    expect(fault.hits).toBe(2);
    fault.remove();
    const issues = (await admin.get(`${base}/issues`)).body;
    expect(issues.map((i: { id: number }) => i.id)).toEqual([res.body.id]);
    const sprint = (await admin.get(base)).body;
    expect(sprint).toMatchObject({ issues_count: 1, total_story_points: 3 });
    expect(res.body.issue_number).toBe(`${project.prefix}-1`);
  });

  it('answers 503 {error} with Retry-After once retries are spent, and applies nothing', async () => {
    const { admin, project, base } = await setup();
    const before = await snapshot(admin, project.id, base);
    const throttled = injectFault({ commands: WRITES, fault: 'Throttling', when: (input) => !isTokenKey(input) });
    expect503(await admin.post(`${base}/issues`, { issue: { title: 'Never written', story_points: 5 } }));
    expect503(await admin.patch(`/api/v1/projects/${project.id}`, { project: { name: 'Never renamed' } }));
    expect503(await admin.delete(base));
    expect(throttled.hits).toBeGreaterThanOrEqual(3 * 4); // maxAttempts 4 per request
    throttled.remove();
    expect(await snapshot(admin, project.id, base)).toEqual(before);
    // And the same requests go through once DynamoDB accepts writes again.
    const created = await admin.post(`${base}/issues`, { issue: { title: 'Now written', story_points: 5 } });
    expect(created.status).toBe(201);
    expect((await admin.get(base)).body).toMatchObject({ issues_count: 1, total_story_points: 5 });
  });

  it('answers 503 for throttled reads', async () => {
    const { admin, project, base } = await setup();
    injectFault({ commands: READS, fault: 'ProvisionedThroughputExceeded' });
    expect503(await admin.get(`/api/v1/projects/${project.id}`));
    expect503(await admin.get(`${base}/issues`));
    expect503(await admin.get('/api/v1/projects'));
  });

  it('answers 503 with Retry-After when the token lookup itself is throttled', async () => {
    const { admin } = await setup();
    injectFault({ commands: ['UpdateItemCommand'], fault: 'Throttling', when: (input) => isTokenKey(input) });
    const res = await admin.get('/api/v1/me');
    expect503(res);
    clearFaults();
    expect((await admin.get('/api/v1/me')).status).toBe(200);
  });

  it('never answers 500 for a throttled idempotency store, and writes nothing', async () => {
    const { admin, project, base } = await setup();
    const before = await snapshot(admin, project.id, base);
    injectFault({ commands: ['PutItemCommand'], fault: 'ProvisionedThroughputExceeded' });
    const key = randomUUID();
    expect503(await admin.post(`${base}/issues`, { issue: { title: 'Keyed' } }, { headers: { 'Idempotency-Key': key } }));
    clearFaults();
    expect(await snapshot(admin, project.id, base)).toEqual(before);
    const ok = await admin.post(`${base}/issues`, { issue: { title: 'Keyed' } }, { headers: { 'Idempotency-Key': key } });
    expect(ok.status).toBe(201);
  });
});

describe('cancelled transactions (TransactionConflict)', () => {
  it('are retried: a create whose transaction meets two conflicts is written once', async () => {
    const { admin, base } = await setup();
    const fault = injectFault({ commands: [WRITE], fault: 'TransactionConflict', times: 2 });
    const res = await admin.post(`${base}/issues`, { issue: { title: 'After conflicts', story_points: 2 } });
    expect(res.status).toBe(201);
    expect(fault.hits).toBe(2);
    expect((await admin.get(`${base}/issues`)).body).toHaveLength(1);
    expect((await admin.get(base)).body).toMatchObject({ issues_count: 1, total_story_points: 2 });
  });

  it('answer 503 {error} with Retry-After when the conflict persists, and nothing is half-applied', async () => {
    const { admin, project, base } = await setup();
    const issue = (await admin.post(`${base}/issues`, { issue: { title: 'Stays', story_points: 8 } })).body;
    const before = await snapshot(admin, project.id, base);
    injectFault({ commands: WRITES, fault: 'TransactionConflict', when: (input) => !isTokenKey(input) });
    // An issue write goes on losing races for 8 s before its 503 (ISSUE_WRITE_BUDGET); a second
    // of them is as many lost races as this needs, and the same 503 at its end.
    const budget = { ...ISSUE_WRITE_BUDGET };
    Object.assign(ISSUE_WRITE_BUDGET, { withinMs: 1_000 });
    try {
      expect503(await admin.post(`${base}/issues`, { issue: { title: 'Never', story_points: 1 } }));
      expect503(await admin.patch(`${base}/issues/${issue.id}`, { issue: { status: 'done', story_points: 13 } }));
      expect503(await admin.patch(`${base}/issues/${issue.id}`, { issue: { sprint_id: null } }));
      expect503(await admin.delete(`${base}/issues/${issue.id}`));
      expect503(await admin.post(`${base}/activate`));
    } finally {
      Object.assign(ISSUE_WRITE_BUDGET, budget);
    }
    clearFaults();
    expect(await snapshot(admin, project.id, base)).toEqual(before);
    // Counters still agree with the items once writes go through again.
    expect((await admin.patch(`${base}/issues/${issue.id}`, { issue: { status: 'done' } })).status).toBe(200);
    expect((await admin.get(base)).body).toMatchObject({ issues_count: 1, total_story_points: 8, completed_story_points: 8 });
  });
});

describe('unexpected errors', () => {
  it('answer 500 {error} without internals', async () => {
    const { admin, project } = await setup();
    injectFault({ commands: READS, fault: 'Unknown' });
    const res = await admin.get(`/api/v1/projects/${project.id}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error' });
    expect(res.text).not.toContain('Injected');
  });
});

function isTokenKey(input: Record<string, unknown>): boolean {
  const key = input.Key as { PK?: { S?: string } } | undefined;
  return key?.PK?.S?.startsWith('TOKEN#') ?? false;
}

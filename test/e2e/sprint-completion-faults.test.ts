/**
 * Completing a sprint of 1,000 open issues over HTTP with faults injected between its steps
 * (test/support/faults.ts): every interrupted request leaves a `completing` sprint, and whatever
 * finishes it (a retry, concurrent requests) ends in the one complete result.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { clearFaults, injectFault } from '../support/faults.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { type ApiClient, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { seedProject } from '../support/seed.ts';

const gateway = useGateway();
afterEach(() => clearFaults());

const OPEN = 1000;
const POINTS = 3; // what seedProject gives each issue

/** Fails the `n`-th transaction from now (an unknown error: the request answers 500), once. */
function failTransaction(n: number) {
  let seen = 0;
  return injectFault({ commands: ['TransactWriteItemsCommand'], fault: 'Unknown', times: 1, when: () => ++seen === n });
}

async function listIds(admin: ApiClient, path: string): Promise<number[]> {
  const ids: number[] = [];
  let next: string | undefined = `${path}?per_page=100`;
  while (next) {
    const res = await admin.get(next);
    expect(res.status).toBe(200);
    ids.push(...res.body.map((i: { id: number }) => i.id));
    const link = /<[^>]*?(\/api\/v1\/[^>]*)>; rel="next"/.exec(res.headers.get('link') ?? '');
    next = link?.[1];
  }
  return ids;
}

describe('completing a sprint of 1,000 open issues', () => {
  it('survives crashes between steps and concurrent finishers, ending in one exact result', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const project = (await admin.post('/api/v1/projects', { project: { name: 'Big', prefix: randomPrefix() } })).body;
    const base = `/api/v1/projects/${project.id}`;
    const seeded = await seedProject(org.orgId, project.id, org.admin.id, {
      sprints: 1,
      issuesPerSprint: OPEN,
      commentsPerIssue: 0,
    });
    const sprintId = seeded.sprintIds[0] as number;
    const openIds = seeded.issues.get(sprintId) ?? [];
    // The seeded sprint as an active one whose counters match its issues.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.sprint(org.orgId, project.id, sprintId),
        UpdateExpression:
          'SET #status = :active, total_story_points = :points, open_issues_count = :n, open_story_points = :points, ' +
          'committed_issues = :n, committed_points = :points, burndown_base = :points, activated_on = :today, start_date = :today',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':active': 'active',
          ':points': OPEN * POINTS,
          ':n': OPEN,
          ':today': new Date().toISOString().slice(0, 10),
        },
      }),
    );
    const path = `${base}/sprints/${sprintId}`;
    const target = (await admin.post(`${base}/sprints`, { sprint: { name: 'Next' } })).body;
    const targetPath = `${base}/sprints/${target.id}`;
    const waiting = (await admin.post(`${targetPath}/issues`, { issue: { title: 'Already planned', story_points: 1 } })).body;
    const body = { carry_over: { sprint_id: target.id } };

    // A crash after the begin and one batch of moves.
    failTransaction(3);
    expect((await admin.post(`${path}/complete`, body)).status).toBe(500);
    const halfway = (await admin.get(path)).body;
    // A batch moves 32 issues (each with its search record and its number's pointer: 96 transaction items).
    expect(halfway).toMatchObject({ status: 'completing', issues_count: OPEN - 32, report: null });
    expect((await admin.get(targetPath)).body).toMatchObject({ issues_count: 33, total_story_points: 1 + 32 * POINTS });
    // Meanwhile the frozen sprint and the receiving target refuse what would change them.
    expect((await admin.patch(`${path}/issues/${openIds[500]}`, { issue: { status: 'done' } })).status).toBe(409);
    expect((await admin.post(`${path}/issues`, { issue: { title: 'late' } })).status).toBe(409);
    expect((await admin.delete(`${path}/issues/${openIds[500]}`)).status).toBe(409);
    expect((await admin.delete(path)).status).toBe(409);
    expect((await admin.post(`${targetPath}/activate`)).status).toBe(409);
    expect((await admin.delete(targetPath)).status).toBe(409);
    const other = await orgWithClients(gateway);
    expect((await other.admin.post(`${path}/complete`, body)).status).toBe(404);

    // A retry that crashes again further on, in the middle of its moves.
    failTransaction(4);
    expect((await admin.post(`${path}/completion`, body)).status).toBe(500);
    expect((await admin.get(path)).body.status).toBe('completing');

    // Three finishers at once; one asks for another target and is told which one was used.
    const results = await Promise.all([
      admin.post(`${path}/complete`, body),
      admin.post(`${path}/completion`, body),
      admin.post(`${path}/complete`, { carry_over: null }),
    ]);
    expect(results[2]?.status).toBe(409);
    expect(results[2]?.body.error).toContain(`sprint ${target.id}`);
    for (const r of results.slice(0, 2)) expect([200, 422]).toContain(r.status);
    expect(results.some((r) => r.status === 200)).toBe(true);

    const done = (await admin.get(path)).body;
    expect(done).toMatchObject({ status: 'completed', issues_count: 0, total_story_points: 0 });
    expect(done.report).toMatchObject({
      committed: { issues: OPEN, story_points: OPEN * POINTS },
      completed: { issues: 0, story_points: 0 },
      carried_over: { issues: OPEN, story_points: OPEN * POINTS },
      carried_over_to: { sprint_id: target.id },
    });
    for (const r of results.filter((x) => x.status === 200)) expect(r.body).toEqual(done);
    expect((await admin.get(targetPath)).body).toMatchObject({
      status: 'planning',
      issues_count: OPEN + 1,
      total_story_points: 1 + OPEN * POINTS,
    });
    expect(await listIds(admin, `${targetPath}/issues`)).toEqual([waiting.id, ...openIds]);
    expect((await admin.get(`${base}/velocity`)).body.sprints).toEqual([
      expect.objectContaining({ sprint_id: sprintId, committed_story_points: OPEN * POINTS, completed_story_points: 0 }),
    ]);
    // And the target is free again.
    expect((await admin.post(`${targetPath}/activate`)).status).toBe(200);
  }, 240_000);
});
